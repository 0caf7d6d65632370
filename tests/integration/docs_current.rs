//! The docs stay true to the tree: every source, scenario or script file they
//! name exists, and the README's example commands can be run top to bottom
//! (issue 42 items 20 and 21: a bare `rocesim` before it is on PATH, a
//! `compare` of a run no earlier line makes, two examples writing one
//! directory, docs naming files that are gone).

use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// README.md and every Markdown file under docs/.
fn docs() -> Vec<(String, String)> {
    let mut v = vec![("README.md".to_string(), read("README.md"))];
    let dir = Path::new(ROOT).join("docs");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".md"))
        .collect();
    names.sort();
    for n in names {
        let rel = format!("docs/{n}");
        v.push((rel.clone(), read(&rel)));
    }
    v
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(rel)).unwrap()
}

/// The words of `text` that look like a path into our tree: they start at one
/// of our top-level folders and end in a file extension we ship.
fn tree_paths(text: &str) -> Vec<&str> {
    const DIRS: [&str; 7] = [
        "src/",
        "tests/",
        "scenarios/",
        "scripts/",
        "benches/",
        "python/",
        "fuzz/",
    ];
    const EXTS: [&str; 4] = [".rs", ".toml", ".sh", ".py"];
    text.split(|c: char| !(c.is_ascii_alphanumeric() || "_./-".contains(c)))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| DIRS.iter().any(|d| w.starts_with(d)))
        .filter(|w| EXTS.iter().any(|e| w.ends_with(e)))
        .collect()
}

#[test]
fn every_file_the_docs_name_exists() {
    let mut missing = Vec::new();
    let mut named = 0;
    for (doc, text) in docs() {
        for p in tree_paths(&text) {
            named += 1;
            if !Path::new(ROOT).join(p).exists() {
                missing.push(format!("{doc}: {p}"));
            }
        }
    }
    assert!(named > 100, "the scan finds the docs' paths ({named})");
    assert!(
        missing.is_empty(),
        "docs name files that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_scan_finds_paths_in_prose_and_code() {
    let t = "see `src/nic/rx.rs`, (scenarios/a-b.toml). and src/cc/ or docs/x.md";
    assert_eq!(tree_paths(t), ["src/nic/rx.rs", "scenarios/a-b.toml"]);
}

/// The lines of the README's ```sh blocks, in order, without comments.
fn readme_commands() -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in read("README.md").lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside && line.trim_start() == "```sh";
            continue;
        }
        if inside {
            // Without the comment.
            let cmd = line.split(" #").next().unwrap_or("");
            out.push(cmd.trim().to_string());
        }
    }
    out
}

/// The value after `flag` in a command line.
fn arg<'a>(line: &'a str, flag: &str) -> Option<&'a str> {
    let mut it = line.split_whitespace();
    it.by_ref().find(|w| *w == flag)?;
    it.next()
}

/// Checks that `lines` (shell commands, in order) can run top to bottom;
/// returns the run directories they make.
fn check_commands(lines: &[String]) -> Result<Vec<String>, String> {
    let mut on_path = false;
    let mut made: Vec<String> = Vec::new();
    for line in lines {
        if line.starts_with("cargo install --path .") {
            on_path = true;
        }
        let Some(rest) = line.strip_prefix("rocesim ") else {
            continue;
        };
        if !on_path {
            return Err(format!(
                "`{line}` uses rocesim before a line puts it on PATH (cargo install --path .)"
            ));
        }
        let mut words = rest.split_whitespace();
        match words.next() {
            Some("run") => {
                if let Some(out) = arg(line, "--out") {
                    if made.iter().any(|m| m == out) && !line.contains("--force") {
                        return Err(format!(
                            "`{line}` writes into {out}, which an earlier example made"
                        ));
                    }
                    made.push(out.to_string());
                }
            }
            Some("sweep") => {
                // A sweep writes runs/<file stem> unless --out says otherwise
                // (and resumes there: a second sweep into it is fine).
                let dir = arg(line, "--out").map(str::to_string).or_else(|| {
                    let file = words.next()?;
                    let stem = Path::new(file).file_stem()?.to_str()?;
                    Some(format!("runs/{stem}"))
                });
                made.extend(dir);
            }
            Some("compare") | Some("report") => {
                for dir in words.take_while(|w| !w.starts_with('-')) {
                    if dir.starts_with("runs/") && !made.iter().any(|m| m == dir) {
                        return Err(format!(
                            "`{line}` reads {dir}, which no earlier example makes"
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(made)
}

#[test]
fn the_readme_commands_run_in_order() {
    let lines = readme_commands();
    assert!(lines.len() > 10, "the README has its command blocks");
    let made = check_commands(&lines).unwrap_or_else(|e| panic!("README: {e}"));
    assert!(made.len() >= 2, "the examples make runs ({made:?})");
}

#[test]
fn the_command_check_catches_what_the_readme_once_had() {
    let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let install = "cargo install --path .";
    let bare = check_commands(&lines(&["rocesim run a.toml --out runs/x"]));
    assert!(bare.unwrap_err().contains("before a line puts it on PATH"));
    let unmade = check_commands(&lines(&[
        install,
        "rocesim run a.toml --out runs/x",
        "rocesim compare runs/x runs/y --out runs/c",
    ]));
    assert!(unmade.unwrap_err().contains("reads runs/y"));
    let twice = check_commands(&lines(&[
        install,
        "rocesim run a.toml --out runs/x",
        "rocesim run a.toml --set cc.algorithm=dcqcn --out runs/x",
    ]));
    assert!(twice.unwrap_err().contains("writes into runs/x"));
}

#[test]
fn every_topology_kind_the_loader_takes_is_documented() {
    // The loader's own list, from its refusal of a kind it does not know.
    let text = "name = \"k\"\n[topology]\nkind = \"no-such-kind\"\n";
    let err = match rocesim::run_str(text, &[], &rocesim::sim::RunOptions::default()) {
        Ok(_) => panic!("an unknown kind is refused"),
        Err(e) => e.to_string(),
    };
    let list = err.split("expected one of").nth(1).expect(&err);
    let kinds: Vec<&str> = list.split('`').skip(1).step_by(2).collect();
    assert!(kinds.len() >= 9, "{err}");
    let doc = read("docs/topologies-and-workloads.md");
    for k in kinds {
        assert!(
            doc.contains(&format!("| `{k}` |")),
            "topology kind {k} has no row in docs/topologies-and-workloads.md"
        );
    }
}
