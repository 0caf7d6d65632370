//! Transparent huge pages for the heap (src/huge_pages.rs): on Linux with
//! glibc, `rocesim` runs itself again with `glibc.malloc.hugetlb=1`, which
//! timing.json reports; `ROCESIM_THP=0` keeps the plain heap. The outputs are
//! byte-identical either way: the pages change speed, never a result.

use crate::common::{output_files, scratch};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs the 2-to-1 DCTCP scenario into `out` with `ROCESIM_THP` set to `thp`
/// (unset if `None`); timing.json's `heap_huge_pages`.
fn run(out: &Path, thp: Option<&str>) -> bool {
    let scenario = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios/dctcp-2to1.toml");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rocesim"));
    cmd.arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(out)
        .arg("-q")
        .env_remove("GLIBC_TUNABLES")
        .env_remove("ROCESIM_THP");
    if let Some(v) = thp {
        cmd.env("ROCESIM_THP", v);
    }
    let o = cmd.output().expect("binary runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("timing.json")).unwrap()).unwrap();
    t["heap_huge_pages"]
        .as_bool()
        .expect("timing.json has heap_huge_pages")
}

#[test]
fn the_heap_gets_huge_pages_on_glibc_unless_turned_off_and_outputs_do_not_change() {
    let dir = scratch("huge-pages");
    let (on, off) = (dir.join("on"), dir.join("off"));
    let glibc_linux = cfg!(all(target_os = "linux", target_env = "gnu"));
    assert_eq!(run(&on, None), glibc_linux);
    assert!(!run(&off, Some("0")));
    assert_eq!(output_files(&on), output_files(&off));
}
