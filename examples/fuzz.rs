//! Stable-toolchain fuzzing of every input parser (issue 17).
//!
//! ```text
//! cargo run --release --example fuzz -- TARGET SECONDS [--seed N] [--mem-mb M] [--hang-s S]
//! cargo run --release --example fuzz -- TARGET --replay FILE
//! cargo run --release --example fuzz -- --list
//! ```
//!
//! Each target feeds text to one parser (and what the CLI does right after it):
//! `scenario` (scenario TOML, load + resolve), `set` (`--set` values on a
//! scenario, one per line), `ns3-config` (import-ns3, then load + resolve of the
//! imported scenario), `ns3-topology` (parse + build with routes), `ns3-flows`
//! and `cdf` (parse, then mean and samples). Inputs are mutations of a seed
//! corpus (real files from scenarios/ and data/, plus tests/fuzz-corpus/TARGET/)
//! and random token lines: token swaps with boundary values (0, 2^32, 2^64,
//! 1e300, "1ps", ...), line deletions, duplications and splices, truncation and
//! byte noise.
//!
//! The property: every input ends in `Ok` or an `InputError` (the CLI's exit 2)
//! whose message is one non-empty line, within a time bound (`--hang-s`, default
//! 20 s) and a memory bound (`--mem-mb`, default 4096 MiB of live heap) - never
//! a panic, an abort or a hang. A failing input is saved under
//! target/fuzz-crashes/TARGET/ and reported; the exit code is then 1. Turn it
//! into a regression test in tests/integration/robustness_input.rs.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

// ---- memory bound: a counting allocator -------------------------------------

static LIVE: AtomicUsize = AtomicUsize::new(0);
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Size of the allocation that would have crossed the limit (0: none).
static OVER: AtomicUsize = AtomicUsize::new(0);
/// The bound as given, for the report.
static MEM_MB: AtomicUsize = AtomicUsize::new(0);

struct Counting;

impl Counting {
    /// Accounts `size` more bytes; past the limit, parks the thread for the
    /// watchdog to report (an allocator must not unwind, nor allocate).
    fn charge(&self, size: usize) {
        let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
        if live > LIMIT.load(Ordering::Relaxed) {
            OVER.store(size.max(1), Ordering::SeqCst);
            loop {
                std::thread::sleep(Duration::from_secs(1));
            }
        }
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.charge(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.charge(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            self.charge(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

// ---- targets -----------------------------------------------------------------

type Outcome = Result<(), rocesim::error::InputError>;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scenario(text: &str) -> Outcome {
    let base = root().join("scenarios");
    let src = rocesim::scenario::Source::text(text, "fuzz.toml", &base, "fuzz");
    rocesim::scenario::to_config(&src, &[])?;
    Ok(())
}

const SET_BASE: &str = r#"
[topology]
kind = "star"
hosts = 3
rate = "100Gbps"
delay = "1us"
[[workload.flows]]
src = 1
dst = 0
size = "10KB"
[[workload.periodic]]
src = 2
dst = 0
size = 1000
interval = "10us"
duration = "100us"
"#;

fn set(text: &str) -> Outcome {
    let base = root().join("scenarios");
    let overrides: Vec<String> = text.lines().map(str::to_string).collect();
    let src = rocesim::scenario::Source::text(SET_BASE, "fuzz.toml", &base, "fuzz");
    rocesim::scenario::to_config(&src, &overrides)?;
    Ok(())
}

fn sweep(text: &str) -> Outcome {
    // A sweep file beside the shipped ones: `base = "../quickstart.toml"` resolves.
    let path = root().join("scenarios/sweeps/fuzz.toml");
    match rocesim::sweep::load_sweep_str(text, &path) {
        Ok(_) => Ok(()),
        Err(rocesim::error::Error::Input(e)) => Err(e),
        Err(e) => Err(rocesim::error::InputError::new(
            "fuzz.toml",
            "",
            e.to_string(),
        )),
    }
}

fn ns3_config(text: &str) -> Outcome {
    use rocesim::scenario::{Source, ns3_import};
    let dir = root().join("data/hpcc-ns3/mix");
    let out = dir.join("fuzz-imported.toml");
    let imported = ns3_import::import(&dir.join("config.txt"), text, Some(&out))?;
    let src = Source::text(&imported.toml, "fuzz-imported.toml", &dir, "ns3");
    rocesim::scenario::to_config(&src, &[])?;
    Ok(())
}

fn ns3_topology(text: &str) -> Outcome {
    let path = Path::new("topology.txt");
    let spec = rocesim::topology::ns3::parse_topology(path, text)?;
    rocesim::topology::Topology::build(spec)
        .map_err(|m| rocesim::error::InputError::in_file(path, "", m))?;
    Ok(())
}

fn ns3_flows(text: &str) -> Outcome {
    rocesim::workload::ns3::parse_flows(Path::new("flow.txt"), text)?;
    Ok(())
}

fn cdf(text: &str) -> Outcome {
    let c = rocesim::workload::cdf::FlowSizeCdf::parse("cdf.txt", text)?;
    let mut r = ChaCha8Rng::seed_from_u64(1);
    let _ = c.mean();
    for _ in 0..16 {
        c.sample(&mut r);
    }
    Ok(())
}

struct Target {
    name: &'static str,
    run: fn(&str) -> Outcome,
    /// Seed files: (directory under the repository, file-name suffix).
    seeds: &'static [(&'static str, &'static str)],
}

const TARGETS: &[Target] = &[
    Target {
        name: "scenario",
        run: scenario,
        seeds: &[("scenarios", ".toml")],
    },
    Target {
        name: "set",
        run: set,
        seeds: &[],
    },
    Target {
        name: "sweep",
        run: sweep,
        seeds: &[("scenarios/sweeps", ".toml")],
    },
    Target {
        name: "ns3-config",
        run: ns3_config,
        seeds: &[
            ("data/hpcc-ns3/mix", "config.txt"),
            (
                "data/ns3-reference/fat_fbhdp_l30_100G_1ms_seed2_dcqcn",
                "config.txt",
            ),
            (
                "data/ns3-reference/fat_fbhdp_l30_100G_1ms_seed2_hp",
                "config.txt",
            ),
        ],
    },
    Target {
        name: "ns3-topology",
        run: ns3_topology,
        seeds: &[
            ("data/hpcc-ns3/mix", "fat.txt"),
            ("data/hpcc-ns3/mix", "topology.txt"),
            ("data/hpcc-ns3/generated/scenarios", "_topo.txt"),
        ],
    },
    Target {
        name: "ns3-flows",
        run: ns3_flows,
        seeds: &[
            ("data/hpcc-ns3/mix", "flow.txt"),
            ("data/hpcc-ns3/generated/scenarios", "flow_1MB.txt"),
        ],
    },
    Target {
        name: "cdf",
        run: cdf,
        seeds: &[
            ("data/workloads", ".txt"),
            ("data/hpcc-ns3/traffic_gen", "_distribution.txt"),
        ],
    },
];

/// Seed inputs no larger than this (larger files make slow mutations).
const MAX_SEED_BYTES: u64 = 64 * 1024;

fn corpus(t: &Target) -> Vec<String> {
    let mut out = Vec::new();
    let mut add_dir = |dir: &Path, suffix: &str| {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        let mut files: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for f in files {
            let name = f.file_name().map(|n| n.to_string_lossy().into_owned());
            let small = f
                .metadata()
                .is_ok_and(|m| m.is_file() && m.len() <= MAX_SEED_BYTES);
            if small
                && name.is_some_and(|n| n.ends_with(suffix))
                && let Ok(text) = std::fs::read_to_string(&f)
            {
                out.push(text);
            }
        }
    };
    for (dir, suffix) in t.seeds {
        add_dir(&root().join(dir), suffix);
    }
    add_dir(&root().join("tests/fuzz-corpus").join(t.name), "");
    if out.is_empty() {
        out.push(String::new());
    }
    out
}

// ---- mutations -----------------------------------------------------------------

const INTERESTING: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "7",
    "8",
    "255",
    "256",
    "65535",
    "65536",
    "4000000000",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "1e300",
    "-1e300",
    "1e-300",
    "NaN",
    "inf",
    "-inf",
    "1.5",
    "0.5",
    "-0",
    "+1",
    "\"1ps\"",
    "\"0.0001ps\"",
    "\"1e300s\"",
    "\"1bps\"",
    "\"0Gbps\"",
    "\"1e20Gbps\"",
    "\"1.5\"",
    "\"1.5KB\"",
    "\"1e18\"",
    "\"1000GB\"",
    "\"\"",
    "\"x\"",
    "true",
    "[]",
    "{}",
    "[[",
    "]]",
    "=",
    "\"",
    "#",
    "1ps",
    "1e300s",
    "100Gbps",
    "1us",
    "0ps",
    "\"100Gbps\"",
    "\"1us\"",
    "\"10ms\"",
    "\"all\"",
    "\"none\"",
    "1000000",
    "20000001",
];

const NOISE: &[u8] = b"[]=\"'.#{}\n\t 0123456789-+eE_,:abcxyz\\";

fn pick<'a, T>(r: &mut ChaCha8Rng, v: &'a [T]) -> &'a T {
    &v[r.random_range(0..v.len())]
}

/// Byte ranges of the whitespace-separated tokens of `s`.
fn tokens(s: &str) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(a)) => {
                v.push((a, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(a) = start {
        v.push((a, s.len()));
    }
    v
}

fn random_line(r: &mut ChaCha8Rng) -> String {
    let n = r.random_range(1..=7);
    (0..n)
        .map(|_| pick(r, INTERESTING).to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn mutate_once(r: &mut ChaCha8Rng, s: &mut String, corpus: &[String]) {
    match r.random_range(0..10) {
        // A token becomes a boundary value.
        0 | 1 => {
            let t = tokens(s);
            if let Some(&(a, b)) = t.get(r.random_range(0..t.len().max(1))) {
                let value = *pick(r, INTERESTING);
                s.replace_range(a..b, value);
            }
        }
        // A number grows, shrinks or flips sign.
        2 => {
            let digits: Vec<usize> = s
                .char_indices()
                .filter(|(_, c)| c.is_ascii_digit())
                .map(|(i, _)| i)
                .collect();
            if let Some(&i) = digits.get(r.random_range(0..digits.len().max(1))) {
                let insert = pick(r, &["000", "0000000000", "-", ".5", "e30", "9"]);
                s.insert_str(i, insert);
            }
        }
        // Line edits: delete, duplicate, swap.
        3 | 4 => {
            let mut lines: Vec<String> = s.lines().map(str::to_string).collect();
            if !lines.is_empty() {
                let i = r.random_range(0..lines.len());
                match r.random_range(0..3) {
                    0 => {
                        lines.remove(i);
                    }
                    1 => {
                        let l = lines[i].clone();
                        lines.insert(i, l);
                    }
                    _ => {
                        let j = r.random_range(0..lines.len());
                        lines.swap(i, j);
                    }
                }
                *s = lines.join("\n");
                s.push('\n');
            }
        }
        // Splice a line of another corpus file, or a random token line.
        5 => {
            let line = if r.random_bool(0.5) {
                let other = pick(r, corpus);
                let lines: Vec<&str> = other.lines().collect();
                lines
                    .get(r.random_range(0..lines.len().max(1)))
                    .map_or_else(|| random_line(r), |l| l.to_string())
            } else {
                random_line(r)
            };
            let mut lines: Vec<&str> = s.lines().collect();
            let i = r.random_range(0..=lines.len());
            lines.insert(i, &line);
            *s = lines.join("\n");
            s.push('\n');
        }
        // Truncate.
        6 => {
            if !s.is_empty() {
                let mut at = r.random_range(0..s.len());
                while !s.is_char_boundary(at) {
                    at -= 1;
                }
                s.truncate(at);
            }
        }
        // Byte noise.
        7 => {
            let mut at = r.random_range(0..=s.len());
            while !s.is_char_boundary(at) {
                at -= 1;
            }
            let n = r.random_range(1..4);
            for _ in 0..n {
                s.insert(at, *pick(r, NOISE) as char);
            }
        }
        // Delete a token.
        8 => {
            let t = tokens(s);
            if let Some(&(a, b)) = t.get(r.random_range(0..t.len().max(1))) {
                s.replace_range(a..b, "");
            }
        }
        // Replace a whole value after "=" (TOML) with a boundary value.
        _ => {
            let eqs: Vec<usize> = s.match_indices(" = ").map(|(i, _)| i + 3).collect();
            if let Some(&a) = eqs.get(r.random_range(0..eqs.len().max(1))) {
                let b = s[a..].find('\n').map_or(s.len(), |e| a + e);
                let value = *pick(r, INTERESTING);
                s.replace_range(a..b, value);
            }
        }
    }
}

fn mutate(r: &mut ChaCha8Rng, corpus: &[String]) -> String {
    let mut s = pick(r, corpus).clone();
    let n = r.random_range(1..=4);
    for _ in 0..n {
        mutate_once(r, &mut s, corpus);
    }
    s
}

// ---- driver ----------------------------------------------------------------------

/// The input being run, for the watchdog to save when a bound is crossed.
static CURRENT: Mutex<String> = Mutex::new(String::new());
/// When the current execution began (ms since start; 0: between executions).
static EXEC_START_MS: AtomicU64 = AtomicU64::new(0);
static PANIC_MSG: Mutex<String> = Mutex::new(String::new());

fn save(target: &str, kind: &str, input: &str) -> PathBuf {
    let dir = root().join("target/fuzz-crashes").join(target);
    let _ = std::fs::create_dir_all(&dir);
    // FNV-1a of the input names the file.
    let h = input.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    });
    let p = dir.join(format!("{kind}-{h:016x}.txt"));
    let _ = std::fs::write(&p, input);
    p
}

fn watchdog(target: &'static str, t0: Instant, hang: Duration) {
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(Duration::from_millis(50));
            let over = OVER.load(Ordering::SeqCst);
            let started = EXEC_START_MS.load(Ordering::SeqCst);
            let now = t0.elapsed().as_millis() as u64;
            if over > 0 {
                // Lift the bound first: this thread allocates to report it.
                LIMIT.store(usize::MAX, Ordering::SeqCst);
            }
            let what = if over > 0 {
                Some(format!(
                    "memory bound: an allocation of {over} bytes would pass the limit of {} MiB",
                    MEM_MB.load(Ordering::Relaxed)
                ))
            } else if started > 0 && now.saturating_sub(started) > hang.as_millis() as u64 {
                Some(format!("time bound: one input ran over {:?}", hang))
            } else {
                None
            };
            if let Some(what) = what {
                // try_lock: the parked thread may hold it (then the input is lost).
                let input = CURRENT
                    .try_lock()
                    .map(|s| s.clone())
                    .unwrap_or_else(|_| "(input not available)".into());
                let p = save(target, "bound", &input);
                eprintln!("{target}: FAIL {what}; input saved to {}", p.display());
                std::process::exit(1);
            }
        }
    });
}

/// Runs one input: Ok(true) for Ok, Ok(false) for an InputError, Err(description)
/// when it broke the property.
fn exec(t: &Target, input: &str, t0: Instant) -> Result<bool, String> {
    if let Ok(mut c) = CURRENT.lock() {
        c.clear();
        c.push_str(input);
    }
    EXEC_START_MS.store(t0.elapsed().as_millis().max(1) as u64, Ordering::SeqCst);
    let res = catch_unwind(AssertUnwindSafe(|| (t.run)(input)));
    EXEC_START_MS.store(0, Ordering::SeqCst);
    match res {
        Ok(Ok(())) => Ok(true),
        Ok(Err(e)) => {
            let s = e.to_string();
            if s.trim().is_empty() || s.contains('\n') {
                Err(format!("InputError is not one non-empty line: {s:?}"))
            } else {
                Ok(false)
            }
        }
        Err(_) => Err(format!(
            "panic: {}",
            PANIC_MSG.lock().map(|m| m.clone()).unwrap_or_default()
        )),
    }
}

fn usage() -> ! {
    let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
    eprintln!(
        "usage: fuzz TARGET SECONDS [--seed N] [--mem-mb M] [--hang-s S] | fuzz TARGET --replay FILE | fuzz --list\ntargets: {}",
        names.join(", ")
    );
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--list") {
        for t in TARGETS {
            println!("{}", t.name);
        }
        return;
    }
    let Some(t) = args
        .first()
        .and_then(|n| TARGETS.iter().find(|t| t.name == n))
    else {
        usage()
    };
    let opt = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let mem_mb: usize = opt("--mem-mb").and_then(|v| v.parse().ok()).unwrap_or(4096);
    let hang = Duration::from_secs(opt("--hang-s").and_then(|v| v.parse().ok()).unwrap_or(20));
    let seed: u64 = opt("--seed").and_then(|v| v.parse().ok()).unwrap_or(1);
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut m) = PANIC_MSG.lock() {
            *m = info.to_string().replace('\n', " ");
        }
    }));
    let t0 = Instant::now();
    watchdog(t.name, t0, hang);
    let corpus = corpus(t);
    // The bound counts from here: the harness's own corpus is not the input's.
    MEM_MB.store(mem_mb, Ordering::Relaxed);
    LIMIT.store(
        LIVE.load(Ordering::Relaxed) + (mem_mb << 20),
        Ordering::SeqCst,
    );

    if let Some(file) = opt("--replay") {
        let input = std::fs::read_to_string(&file).unwrap_or_else(|e| {
            eprintln!("{file}: {e}");
            std::process::exit(2)
        });
        match exec(t, &input, t0) {
            Ok(true) => println!("{}: {file}: Ok", t.name),
            Ok(false) => println!("{}: {file}: InputError (exit 2)", t.name),
            Err(e) => {
                println!("{}: {file}: FAIL {e}", t.name);
                std::process::exit(1);
            }
        }
        return;
    }

    let secs: f64 = args
        .get(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| usage());
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let (mut execs, mut oks, mut fails) = (0u64, 0u64, 0u64);
    let deadline = Duration::from_secs_f64(secs);
    // Every seed once as it is, then mutations until the time is up.
    let mut seeds = corpus.iter();
    while t0.elapsed() < deadline {
        let input = match seeds.next() {
            Some(s) => s.clone(),
            None => mutate(&mut r, &corpus),
        };
        execs += 1;
        match exec(t, &input, t0) {
            Ok(ok) => oks += ok as u64,
            Err(e) => {
                fails += 1;
                let p = save(t.name, "crash", &input);
                eprintln!("{}: FAIL {e}; input saved to {}", t.name, p.display());
            }
        }
    }
    let took = t0.elapsed().as_secs_f64();
    println!(
        "{}: {execs} executions in {took:.1} s ({:.0}/s; {oks} Ok, {} InputError), {} seeds, {fails} failures",
        t.name,
        execs as f64 / took,
        execs - oks - fails,
        corpus.len()
    );
    if fails > 0 {
        std::process::exit(1);
    }
}
