//! Records how the compiler optimized this binary (`rocesim::build_info`), so that
//! `rocesim bench` and timing.json say which build a speed was measured on
//! (docs/performance.md, "Profile-guided build").

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    // Flags are separated by 0x1f; `-C profile-use=...` may come as two.
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS")
        .unwrap_or_default()
        .replace('\x1f', " ");
    let profile = std::env::var("PROFILE").unwrap_or_default();
    let build = if flags.contains("profile-use=") {
        format!("{profile}, profile-guided")
    } else if flags.contains("profile-generate") {
        format!("{profile}, instrumented for profile-guided optimization")
    } else {
        profile
    };
    println!("cargo:rustc-env=ROCESIM_BUILD={build}");
}
