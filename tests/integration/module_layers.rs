//! The crate's top-level modules form one-way layers: no module cycles, every
//! `crate::<module>` path points down the declared layer list, and the
//! files of `scenario` and `sim`, folder by folder, have no cycles. Outside
//! `src/scenario/`, code names only the scenario facade ([`SCENARIO_FACADE`]):
//! nothing else reads or parses a scenario file.
//!
//! Edges are read from the source text: every `crate::<name>` (in `use` lines and
//! inline qualified paths, including `crate::{a, b}` groups) in `src/<module>/**`
//! or `src/<module>.rs`, with `//` comments stripped, and every bare
//! `<module>::` path in `src/lib.rs`. A name that is not a top-level module is an
//! item of the crate root (`src/lib.rs`), module `lib`. `src/main.rs` (the top)
//! is not read.
//!
//! `scripts/check-layers.sh` runs just this test.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Top-level modules, bottom first. A module may use only modules listed before
/// it. Groups (one line each) are for the reader; the order inside a group is
/// part of the rule.
const LAYERS: &[&[&str]] = &[
    // Foundations.
    &[
        "units",
        "error",
        "limits",
        "engine",
        "stats",
        "ids",
        "lazy_rng",
        "huge_pages",
        "build_info",
    ],
    // Data types.
    &["packet", "profile", "topology", "workload", "port"],
    // Congestion-control algorithms: plain structs, no I/O.
    &["cc"],
    // Recorders: every node writes its shard while it handles an event, so they
    // sit below the nodes (docs/architecture.md).
    &["output"],
    // What a node sees of the world (Ctx, events, link rings).
    &["node"],
    // The node models, each owning its config type.
    &["switch", "nic"],
    // The run configuration aggregate, then the dispatcher.
    &["config", "sim"],
    // Scenario files -> the run config.
    &["scenario"],
    // The crate root's `run`/`run_str`.
    &["lib"],
    &["plot", "report"],
    &["analytic", "reproduce", "sweep"],
    &["cli", "main"],
];

/// Edges that point up the layer list and remain, each with why.
const ALLOWED_UPWARD: &[(&str, &str, &str)] = &[];

/// What code outside `src/scenario/` may name in `scenario` (the segment after
/// `scenario::`), each with why. The loading and resolving modules are private;
/// this keeps the public surface used outside from growing unnoticed.
const SCENARIO_FACADE: &[(&str, &str)] = &[
    ("self", "`use crate::scenario::{self, ..}`"),
    ("Source", "a scenario file or text (src/scenario/source.rs)"),
    ("to_config", "a scenario plus overrides -> the RunConfig"),
    (
        "effective",
        "a scenario plus overrides -> its effective text",
    ),
    ("Effective", "the effective scenario (sweep points)"),
    (
        "apply_override",
        "the `--set key.path=value` grammar, which `rocesim model` applies to model parameters",
    ),
    (
        "toml_error",
        "one-line TOML errors, which sweep files share",
    ),
    (
        "ns3_import",
        "ns-3 config files -> scenario text (`rocesim import-ns3`, `rocesim compare`)",
    ),
];

/// Where an edge was seen: file and 1-based line.
type Sites = Vec<(PathBuf, usize)>;

/// This crate's `src/`, or another tree's when `ROCESIM_LAYERS_SRC` names one
/// (`scripts/check-layers.sh DIR`, e.g. to list an older commit's edges).
fn src_dir() -> PathBuf {
    match std::env::var_os("ROCESIM_LAYERS_SRC") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
    }
}

/// Unit-test files (`tests.rs`, `*_tests.rs`) and the unit tests' kit
/// (`testkit.rs`) are compiled only for tests and may build whole scenarios to
/// drive one node: the layers are about the simulator itself.
fn test_only(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests.rs" || name.ends_with("_tests.rs") || name == "testkit.rs"
}

/// The `.rs` files under `dir`, sorted, without the test-only ones unless
/// `with_tests`.
fn rust_files_with(dir: &Path, with_tests: bool, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files_with(&p, with_tests, out);
        } else if p.extension().is_some_and(|x| x == "rs") && (with_tests || !test_only(&p)) {
            out.push(p);
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    rust_files_with(dir, false, out);
}

/// The file's text with `//` comments blanked (lines kept, so offsets map to
/// the same line numbers). String literals holding `//` are rare enough here.
fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every first path segment after `prefix` (e.g. `crate::`), with its line:
/// `prefix name` gives `name`; `prefix{a::x, b}` gives `a` and `b`.
fn first_segments(text: &str, prefix: &str) -> Vec<(String, usize)> {
    fn ident_at(text: &str, at: usize, out: &mut Vec<(String, usize)>) {
        let rest = &text[at..];
        let lead = rest.len() - rest.trim_start().len();
        let name: String = rest[lead..].chars().take_while(|&c| is_ident(c)).collect();
        if !name.is_empty() {
            out.push((name, at + lead));
        }
    }
    let mut found = Vec::new();
    for (at, _) in text.match_indices(prefix) {
        if text[..at].chars().next_back().is_some_and(is_ident) {
            continue; // `foo_crate::` is not `crate::`
        }
        let body = at + prefix.len();
        if !text[body..].starts_with('{') {
            ident_at(text, body, &mut found);
            continue;
        }
        // A group: the first segment of each item at the group's top level.
        let (mut depth, mut item) = (0usize, body + 1);
        for (i, c) in text[body + 1..].char_indices() {
            let i = body + 1 + i;
            match c {
                '{' => depth += 1,
                '}' if depth > 0 => depth -= 1,
                '}' => {
                    ident_at(&text[..i], item, &mut found);
                    break;
                }
                ',' if depth == 0 => {
                    ident_at(&text[..i], item, &mut found);
                    item = i + 1;
                }
                _ => {}
            }
        }
    }
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    found.into_iter().map(|(n, at)| (n, line_of(at))).collect()
}

/// Paths in the crate root that start with a module's bare name (`sim::Sim`,
/// `use output::{..}`), with their lines.
fn root_paths(text: &str, modules: &BTreeSet<String>) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for m in modules {
            let pat = format!("{m}::");
            let hit = line.match_indices(&pat).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                !before.is_some_and(|c| is_ident(c) || c == ':')
            });
            if hit {
                out.push((m.clone(), n + 1));
            }
        }
    }
    out
}

/// The top-level modules declared in `src/lib.rs`.
fn top_modules() -> BTreeSet<String> {
    let lib = std::fs::read_to_string(src_dir().join("lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("pub mod ")
                .or(l.trim().strip_prefix("mod "))
        })
        .map(|l| l.trim_end_matches(';').to_string())
        .collect()
}

/// The top-level module a file under `src/` belongs to.
fn module_of(rel: &Path) -> String {
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_str()
        .unwrap();
    first.trim_end_matches(".rs").to_string()
}

/// Edges `from -> to` between top-level modules, with where each was seen.
fn module_edges() -> BTreeMap<(String, String), Sites> {
    let modules = top_modules();
    let mut files = Vec::new();
    rust_files(&src_dir(), &mut files);
    let mut edges: BTreeMap<(String, String), Sites> = BTreeMap::new();
    for path in files {
        let rel = path.strip_prefix(src_dir()).unwrap().to_path_buf();
        let from = module_of(&rel);
        let text = strip_comments(&std::fs::read_to_string(&path).unwrap());
        let mut names = first_segments(&text, "crate::");
        if rel == Path::new("lib.rs") {
            // The crate root names its modules without `crate::` (`use sim::Sim`).
            names.extend(root_paths(&text, &modules));
        }
        for (name, line) in names {
            let to = if modules.contains(&name) {
                name
            } else {
                "lib".to_string()
            };
            if to != from {
                edges
                    .entry((from.clone(), to))
                    .or_default()
                    .push((rel.clone(), line));
            }
        }
    }
    edges
}

/// Strongly connected components with more than one node (Tarjan, iterative
/// enough for a few dozen nodes: plain recursion).
fn cycles<'a>(
    nodes: &BTreeSet<&'a str>,
    next: &BTreeMap<&'a str, Vec<&'a str>>,
) -> Vec<Vec<&'a str>> {
    struct T<'a, 'b> {
        next: &'b BTreeMap<&'a str, Vec<&'a str>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<&'a str>>,
    }
    fn visit<'a>(t: &mut T<'a, '_>, v: &'a str) {
        let i = t.index.len();
        t.index.insert(v, i);
        t.low.insert(v, i);
        t.stack.push(v);
        t.on.insert(v);
        for &w in t.next.get(v).map(Vec::as_slice).unwrap_or(&[]) {
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut scc = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(w);
                scc.push(w);
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                t.out.push(scc);
            }
        }
    }
    let mut t = T {
        next,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for &v in nodes {
        if !t.index.contains_key(v) {
            visit(&mut t, v);
        }
    }
    t.out
}

/// One cycle through `start` inside `scc` (breadth-first, so the shortest).
fn cycle_through<'a>(
    start: &'a str,
    scc: &[&'a str],
    next: &BTreeMap<&'a str, Vec<&'a str>>,
) -> Vec<&'a str> {
    let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in next.get(v).map(Vec::as_slice).unwrap_or(&[]) {
            if !scc.contains(&w) {
                continue;
            }
            if w == start {
                let mut path = vec![v];
                while let Some(&p) = prev.get(path.last().unwrap()) {
                    path.push(p);
                }
                path.reverse();
                path.push(start);
                return path;
            }
            if w != start && !prev.contains_key(w) {
                prev.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    unreachable!("{start} is in a strongly connected component, so on a cycle")
}

/// Describes every cycle of `edges` (empty when there is none).
fn describe_cycles(edges: &BTreeMap<(String, String), Sites>) -> String {
    let mut nodes = BTreeSet::new();
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        nodes.insert(from.as_str());
        nodes.insert(to.as_str());
        next.entry(from).or_default().push(to);
    }
    let mut msg = String::new();
    for scc in cycles(&nodes, &next) {
        let path = cycle_through(scc[0], &scc, &next);
        writeln!(
            msg,
            "cycle {} (component {{{}}}):",
            path.join(" -> "),
            scc.join(", ")
        )
        .unwrap();
        for w in path.windows(2) {
            let (file, line) = &edges[&(w[0].to_string(), w[1].to_string())][0];
            writeln!(
                msg,
                "    {} -> {}: src/{}:{line}",
                w[0],
                w[1],
                file.display()
            )
            .unwrap();
        }
        let inside: Vec<String> = edges
            .iter()
            .filter(|((f, t), _)| scc.contains(&f.as_str()) && scc.contains(&t.as_str()))
            .map(|((f, t), sites)| {
                format!("{f} -> {t} (src/{}:{})", sites[0].0.display(), sites[0].1)
            })
            .collect();
        writeln!(
            msg,
            "  all edges inside the component: {}",
            inside.join(", ")
        )
        .unwrap();
    }
    msg
}

#[test]
fn the_module_graph_has_no_cycles_and_layers_point_one_way() {
    let edges = module_edges();
    let rank: BTreeMap<&str, usize> = LAYERS
        .iter()
        .flat_map(|g| g.iter())
        .enumerate()
        .map(|(i, &m)| (m, i))
        .collect();
    let mut problems = String::new();
    for m in top_modules() {
        if !rank.contains_key(m.as_str()) {
            writeln!(
                problems,
                "module `{m}` is not in LAYERS (tests/integration/module_layers.rs): place it"
            )
            .unwrap();
        }
    }
    problems += &describe_cycles(&edges);
    let allowed =
        |from: &str, to: &str| ALLOWED_UPWARD.iter().any(|&(f, t, _)| f == from && t == to);
    for ((from, to), sites) in &edges {
        let (Some(&rf), Some(&rt)) = (rank.get(from.as_str()), rank.get(to.as_str())) else {
            continue;
        };
        if rt >= rf && !allowed(from, to) {
            let (file, line) = &sites[0];
            writeln!(
                problems,
                "{from} -> {to} points up the layers ({} use(s), first src/{}:{line}); \
                 move the type down or, if it must stay, add it to ALLOWED_UPWARD with why",
                sites.len(),
                file.display()
            )
            .unwrap();
        }
    }
    for &(from, to, why) in ALLOWED_UPWARD {
        if !edges.contains_key(&(from.to_string(), to.to_string())) {
            writeln!(
                problems,
                "ALLOWED_UPWARD lists {from} -> {to} ({why}), which no longer exists: remove it"
            )
            .unwrap();
        }
    }
    let listing: Vec<String> = edges
        .iter()
        .map(|((f, t), s)| format!("{f} -> {t} ({})", s.len()))
        .collect();
    println!("module edges (uses):\n  {}", listing.join("\n  "));
    assert!(
        problems.is_empty(),
        "{problems}\nall edges:\n  {}",
        listing.join("\n  ")
    );
}

/// File-level edges among the sibling files of `src/<dir>/` (`mod.rs`, the
/// module's facade that declares and re-exports its children, left out):
/// `super::<file>` and `crate::<dir>::<file>` paths.
fn file_edges(dir: &str) -> BTreeMap<(String, String), Sites> {
    let base = src_dir().join(dir);
    let mut files = Vec::new();
    rust_files(&base, &mut files);
    let stem = |p: &Path| {
        p.strip_prefix(&base)
            .unwrap()
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string()
    };
    let siblings: BTreeSet<String> = files
        .iter()
        .map(|p| stem(p))
        .filter(|s| s != "mod")
        .collect();
    let mut edges: BTreeMap<(String, String), Sites> = BTreeMap::new();
    for path in &files {
        let from = stem(path);
        if from == "mod" || path.parent() != Some(base.as_path()) {
            continue; // sub-directories: their own module's business
        }
        let text = strip_comments(&std::fs::read_to_string(path).unwrap());
        let mut names = first_segments(&text, "super::");
        names.extend(first_segments(
            &text,
            &format!("crate::{}::", dir.replace('/', "::")),
        ));
        for (name, line) in names {
            if siblings.contains(&name) && name != from {
                let rel = path.strip_prefix(src_dir()).unwrap().to_path_buf();
                edges
                    .entry((from.clone(), name))
                    .or_default()
                    .push((rel, line));
            }
        }
    }
    edges
}

/// `src/<top>` and every folder below it.
fn folders(top: &str) -> Vec<String> {
    let mut out = vec![top.to_string()];
    let mut i = 0;
    while i < out.len() {
        let mut subs: Vec<String> = std::fs::read_dir(src_dir().join(&out[i]))
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .map(|e| format!("{}/{}", out[i], e.file_name().to_str().unwrap()))
            .collect();
        subs.sort();
        out.extend(subs);
        i += 1;
    }
    out
}

#[test]
fn the_files_of_scenario_and_sim_have_no_cycles() {
    let mut problems = String::new();
    let dirs = [folders("scenario"), folders("sim")].concat();
    assert!(dirs.iter().any(|d| d == "scenario/switch"), "{dirs:?}");
    for dir in &dirs {
        let cycles = describe_cycles(&file_edges(dir));
        if !cycles.is_empty() {
            writeln!(problems, "src/{dir}/:\n{cycles}").unwrap();
        }
    }
    assert!(problems.is_empty(), "{problems}");
}

#[test]
fn outside_src_scenario_only_the_scenario_facade_is_named() {
    let src = src_dir();
    let mut files = Vec::new();
    rust_files_with(&src, true, &mut files);
    let mut problems = String::new();
    for path in files {
        let rel = path.strip_prefix(&src).unwrap();
        if rel.starts_with("scenario") {
            continue;
        }
        let text = strip_comments(&std::fs::read_to_string(&path).unwrap());
        for (name, line) in first_segments(&text, "scenario::") {
            if !SCENARIO_FACADE.iter().any(|&(n, _)| n == name) {
                writeln!(
                    problems,
                    "src/{}:{line} names scenario::{name}, which is not in SCENARIO_FACADE \
                     (tests/integration/module_layers.rs): go through scenario::Source and \
                     scenario::to_config / scenario::effective",
                    rel.display()
                )
                .unwrap();
            }
        }
    }
    assert!(problems.is_empty(), "{problems}");
}

/// The dispatcher's MPI code is one engine behind one trait
/// (`sim::parallel::run::Partitions`): every `mpi` feature gate of `src/sim/`
/// is in `src/sim/parallel/`; elsewhere the ranks are an `Option<Ranks>` that
/// is always `None` in a build without MPI.
#[test]
fn the_dispatchers_mpi_feature_gates_are_all_in_sim_parallel() {
    let src = src_dir();
    let mut files = Vec::new();
    rust_files_with(&src.join("sim"), true, &mut files);
    let mut problems = String::new();
    for path in files {
        let rel = path.strip_prefix(&src).unwrap();
        if rel.starts_with("sim/parallel") {
            continue;
        }
        let text = strip_comments(&std::fs::read_to_string(&path).unwrap());
        for (i, line) in text.lines().enumerate() {
            if line.contains("feature = \"mpi\"") {
                writeln!(problems, "src/{}:{}: {}", rel.display(), i + 1, line.trim()).unwrap();
            }
        }
    }
    assert!(
        problems.is_empty(),
        "MPI feature gates outside src/sim/parallel/ (put the rank-specific code \
         behind sim::parallel::Ranks):\n{problems}"
    );
}
