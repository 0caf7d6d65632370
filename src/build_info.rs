//! How this binary was compiled (set by `build.rs`), so that `rocesim bench`
//! and timing.json say which build a speed was measured on
//! (docs/performance.md, "Profile-guided build").

/// The cargo profile, and whether the compiler optimized with profiles of the
/// binary's own runs (`scripts/build-pgo.sh`): "release", "release,
/// profile-guided", "release, instrumented for profile-guided optimization".
pub const BUILD: &str = env!("ROCESIM_BUILD");
