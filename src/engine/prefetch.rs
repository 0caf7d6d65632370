//! A cache hint: ask the CPU to start loading a value's cache line now, so that
//! a later read finds it there. The event loop uses it to warm the state of
//! the next events while it handles the current one (docs/performance-log.md,
//! 4e71fed, "cache hints and layout").

/// Starts loading the cache line holding `value` into every cache level. Has no
/// effect on what the program computes: a prefetch is a hint that cannot
/// fault, read or change memory as the program sees it.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: `_mm_prefetch` needs SSE, part of every x86_64 CPU (the
        // target's baseline), so the instruction exists wherever this runs. It
        // reads and writes no memory as the program sees it and cannot fault
        // even on an invalid address; here the address comes from a live
        // reference. Justified by `rocesim bench --full`: the 320-host
        // fat-tree 2.73 -> 2.57 s with the hints alone (docs/performance-log.md,
        // 4e71fed, "cache hints and layout").
        unsafe { _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
