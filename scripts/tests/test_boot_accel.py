# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/boot.sh's choice of accelerator (make lint runs them).

boot.sh boots the guest under KVM only if this kernel, booted under KVM, prints its first
console line within KVM_PROBE_S seconds. Some hosts have a /dev/kvm on which the firmware
runs but the kernel never prints anything (a VM without nested VMX/SVM), and a guest booted
there spins until its timeout. These tests put a fake qemu-system-x86_64 on PATH that
behaves like such a host (or like one where KVM works) and a character device the test may
open in place of /dev/kvm, and check which accelerator the test boot gets and what it says.
"""
import os
import subprocess
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# The fake QEMU. Under KVM it behaves as FAKE_KVM says: "silent" runs the firmware (its
# banner on stdout, as SeaBIOS's debug port would) and then nothing, forever; "stalls"
# prints the kernel's first line and then nothing; "works" boots as far as the root file
# system on the serial port; "abort" dies of SIGABRT at once, as QEMU does when it cannot set
# up the vCPU. Under TCG it prints a kernel line and the end of a run.
FAKE_QEMU = textwrap.dedent('''\
    #!/bin/bash
    kvm=0 serial=
    while [ $# -gt 0 ]; do
        case $1 in
        -accel) [ "$2" = kvm ] && kvm=1; shift ;;
        -serial) serial=${2#file:}; shift ;;
        esac
        shift
    done
    echo "$kvm" >>"$FAKE_CALLS"
    if [ $kvm = 1 ]; then
        case $FAKE_KVM in
        silent) echo "SeaBIOS (version fake)"; exec sleep 600 ;;
        stalls) echo "Linux version fake" >"$serial"; exec sleep 600 ;;
        abort) echo "qemu: error: failed to set MSR 0x10a" >&2; kill -ABRT $$ ;;
        esac
    fi
    if [ -n "$serial" ]; then
        printf 'Linux version fake\nVFS: Unable to mount root fs on unknown-block(0,0)\n' >"$serial"
        exec sleep 600
    fi
    echo "Linux version fake"
    echo "fake guest done"
''')


@pytest.fixture
def host(tmp_path):
    """A build directory with a kernel file, a fake QEMU first on PATH, and its call log."""
    bin_dir, build, cache = tmp_path / 'bin', tmp_path / 'build', tmp_path / 'cache'
    bin_dir.mkdir()
    qemu = bin_dir / 'qemu-system-x86_64'
    qemu.write_text(FAKE_QEMU)
    qemu.chmod(0o755)
    (build / 'kernel-rust/arch/x86/boot').mkdir(parents=True)
    (build / 'kernel-rust/arch/x86/boot/bzImage').write_text('not a kernel')
    env = dict(os.environ, PATH=f'{bin_dir}:{os.environ["PATH"]}', BPF_KSYM_BUILD=str(build),
               BPF_KSYM_CACHE=str(cache), FAKE_CALLS=str(tmp_path / 'calls'),
               KVM_DEVICE='/dev/null', KVM_PROBE_S='2', HEARTBEAT='600')
    for var in ('GUEST_ACCEL', 'QEMU_EXTRA', 'ARCH', 'BPF_KSYM', 'EXTRA_CONFIG', 'V'):
        env.pop(var, None)
    return tmp_path, env


def boot(tmp_path, env, fake_kvm):
    """Run boot.sh's test boot on the fake host; return its stderr and the QEMU calls."""
    calls = tmp_path / 'calls'
    calls.write_text('')
    try:
        r = subprocess.run(['bash', os.path.join(ROOT, 'scripts/boot.sh'), 'test'],
                           env=dict(env, FAKE_KVM=fake_kvm), capture_output=True, text=True,
                           timeout=60)
    except subprocess.TimeoutExpired as e:
        ps = subprocess.run(['ps', '-ef', '--forest'], capture_output=True, text=True).stdout
        pytest.fail(f'boot.sh did not end: {e.stderr}\n{ps}')
    assert r.returncode == 0, r.stderr
    log = (tmp_path / 'build/guest-rust-test.log').read_text()
    return r.stderr, calls.read_text().split(), log


def test_firmware_only_kvm_falls_back_to_tcg(host):
    tmp_path, env = host
    err, calls, log = boot(tmp_path, env, 'silent')
    assert 'accelerator: TCG (the kernel did not get to mounting its root file system within 2s under KVM)' in err
    assert 'probing KVM' in err
    # The probe under KVM, then the real boot under TCG, which ran to its end.
    assert calls == ['1', '0']
    assert 'fake guest done' in log


def test_probe_answer_kept_until_host_reboots(host):
    tmp_path, env = host
    boot(tmp_path, env, 'silent')
    err, calls, _ = boot(tmp_path, env, 'silent')
    assert 'probing KVM' not in err
    assert 'accelerator: TCG (the kernel did not get to mounting its root file system within 2s under KVM)' in err
    assert calls == ['0']


def test_kernel_that_stalls_after_its_first_line_falls_back_to_tcg(host):
    tmp_path, env = host
    err, calls, _ = boot(tmp_path, env, 'stalls')
    assert 'accelerator: TCG (the kernel did not get to mounting its root file system' in err
    assert calls == ['1', '0']


def test_qemu_abort_under_kvm_falls_back_to_tcg(host):
    tmp_path, env = host
    err, calls, _ = boot(tmp_path, env, 'abort')
    assert 'accelerator: TCG (QEMU could not run a KVM guest)' in err
    # Quietly: no job report of bash's for the abort.
    assert 'Aborted' not in err
    assert calls == ['1', '0']


def test_working_kvm_is_used(host):
    tmp_path, env = host
    err, calls, log = boot(tmp_path, env, 'works')
    assert 'accelerator: KVM' in err
    assert 'TCG' not in err
    assert calls == ['1', '1']
    assert 'fake guest done' in log


def test_guest_accel_tcg_skips_the_probe(host):
    tmp_path, env = host
    env['GUEST_ACCEL'] = 'tcg'
    err, calls, _ = boot(tmp_path, env, 'works')
    assert 'accelerator: TCG (GUEST_ACCEL=tcg)' in err
    assert calls == ['0']
