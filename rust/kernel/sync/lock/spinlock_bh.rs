// SPDX-License-Identifier: GPL-2.0

//! A kernel spinlock taken with bottom halves (softirqs) disabled.
//!
//! C header: [`include/linux/spinlock.h`](srctree/include/linux/spinlock.h)
//!
//! This is `spin_lock_bh()`: the lock for data that process context and softirqs (RCU
//! callbacks, timers, networking) change, but hard interrupts never touch. It is cheaper than
//! [`SpinLockIrq`](super::spinlock::SpinLockIrq), which also masks interrupts.

use super::*;

/// A spinlock whose holder runs with bottom halves disabled.
///
/// Like [`SpinLock`](super::spinlock::SpinLock), but a softirq on the same CPU cannot run while
/// the lock is held, so softirqs may take it too.
///
/// # Examples
///
/// ```
/// use kernel::sync::{new_spinlock_bh, SpinLockBh};
///
/// let lock = KBox::pin_init(new_spinlock_bh!(5u32), GFP_KERNEL)?;
/// *lock.lock() += 1;
/// assert_eq!(*lock.lock(), 6);
/// # Ok::<(), Error>(())
/// ```
pub type SpinLockBh<T> = super::Lock<T, SpinLockBhBackend>;

/// Creates a [`SpinLockBh`] initialiser with the given name and a newly-created lock class.
#[macro_export]
macro_rules! new_spinlock_bh {
    ($inner:expr $(, $name:literal)? $(,)?) => {
        $crate::sync::SpinLockBh::new(
            $inner, $crate::optional_name!($($name)?), $crate::static_lock_class!())
    };
}
pub use new_spinlock_bh;

/// A kernel `spinlock_t` lock backend taken with `spin_lock_bh()`.
pub struct SpinLockBhBackend;

/// A [`Guard`] of a [`SpinLockBh`]; bottom halves are enabled again when it is dropped.
pub type SpinLockBhGuard<'a, T> = Guard<'a, T, SpinLockBhBackend>;

// SAFETY: The underlying kernel `spinlock_t` object ensures mutual exclusion. `relock` uses the
// default implementation that always calls the same locking method.
unsafe impl Backend for SpinLockBhBackend {
    type State = bindings::spinlock_t;
    type GuardState = ();

    #[inline]
    unsafe fn init(
        ptr: *mut Self::State,
        name: *const crate::ffi::c_char,
        key: *mut bindings::lock_class_key,
    ) {
        // SAFETY: The safety requirements ensure that `ptr` is valid for writes, and `name` and
        // `key` are valid for read indefinitely.
        unsafe { bindings::__spin_lock_init(ptr, name, key) }
    }

    #[inline]
    unsafe fn lock(ptr: *mut Self::State) -> Self::GuardState {
        // SAFETY: The safety requirements of this function ensure that `ptr` points to valid
        // memory, and that it has been initialised before.
        unsafe { bindings::spin_lock_bh(ptr) }
    }

    #[inline]
    unsafe fn unlock(ptr: *mut Self::State, _guard_state: &Self::GuardState) {
        // SAFETY: The safety requirements of this function ensure that `ptr` is valid and that the
        // caller is the owner of the spinlock.
        unsafe { bindings::spin_unlock_bh(ptr) }
    }

    #[inline]
    unsafe fn try_lock(ptr: *mut Self::State) -> Option<Self::GuardState> {
        // SAFETY: The `ptr` pointer is guaranteed to be valid and initialized before use.
        let result = unsafe { bindings::spin_trylock_bh(ptr) };

        if result != 0 {
            Some(())
        } else {
            None
        }
    }

    #[inline]
    unsafe fn assert_is_held(ptr: *mut Self::State) {
        // SAFETY: The `ptr` pointer is guaranteed to be valid and initialized before use.
        unsafe { bindings::spin_assert_is_held(ptr) }
    }
}
