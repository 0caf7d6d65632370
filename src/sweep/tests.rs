use super::*;

const BASE: &str = r#"
name = "tiny"
[topology]
kind = "star"
hosts = 3
rate = "100Gbps"
delay = "1us"
[[workload.flows]]
src = 1
dst = 0
size = "10KB"
"#;

/// A scratch directory with base.toml and the sweep file `text`.
fn sweep_file(name: &str, text: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rocesim-sweep-unit-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("base.toml"), BASE).unwrap();
    let p = d.join("s.toml");
    std::fs::write(&p, text).unwrap();
    p
}

fn load_err(name: &str, text: &str) -> String {
    let p = sweep_file(name, text);
    let e = load_sweep_file(&p).unwrap_err().to_string();
    std::fs::remove_dir_all(p.parent().unwrap()).unwrap();
    assert!(!e.contains('\n'), "{e}");
    assert!(e.contains("s.toml"), "{e}");
    e
}

#[test]
fn a_grid_varies_the_first_axis_slowest_and_keeps_file_order() {
    let p = sweep_file(
        "grid",
        "base = \"base.toml\"\n[axes]\n\"cc.algorithm\" = [\"hpcc\", \"dcqcn\"]\nseed = [1, 2, 3]\n",
    );
    let s = load_sweep_file(&p).unwrap();
    assert_eq!(s.points.len(), 6);
    let ids: Vec<&str> = s.points.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids[0], "p000-algorithm=hpcc-seed=1");
    assert_eq!(ids[4], "p004-algorithm=dcqcn-seed=2");
    assert_eq!(
        s.overrides(&s.points[5]),
        ["cc.algorithm=\"dcqcn\"", "seed=3"]
    );
    std::fs::remove_dir_all(p.parent().unwrap()).unwrap();
}

#[test]
fn point_ids_are_sanitized_and_disambiguate_shared_last_keys() {
    let keys = vec!["workload.poisson[0].load".to_string(), "x.load".to_string()];
    let v = vec![
        (keys[0].clone(), toml::Value::Float(0.5)),
        (keys[1].clone(), toml::Value::String("a b/c".into())),
    ];
    assert_eq!(
        point_id(7, 1001, &v, &keys),
        "p0007-workload.poisson_0_.load=0.5-x.load=a_b_c"
    );
    let one = vec![(keys[0].clone(), toml::Value::Float(0.5))];
    assert_eq!(point_id(3, 4, &one, &keys[..1]), "p003-load=0.5");
}

#[test]
fn the_scenario_hash_is_fnv1a_and_stable() {
    assert_eq!(text_hash(""), "cbf29ce484222325");
    assert_eq!(text_hash("a"), "af63dc4c8601ec8c");
}

#[test]
fn an_axis_key_the_scenario_rejects_names_the_axis() {
    let e = load_err(
        "badkey",
        "base = \"base.toml\"\n[axes]\n\"cc.algoritm\" = [\"hpcc\"]\n",
    );
    assert!(e.contains("axes.\"cc.algoritm\""), "{e}");
    assert!(e.contains("algoritm"), "{e}");
}

#[test]
fn bad_sweep_files_name_the_key() {
    let e = load_err(
        "both",
        "base = \"base.toml\"\npoints = [{ seed = 1 }]\n[axes]\nseed = [1]\n",
    );
    assert!(e.contains("not both"), "{e}");
    let e = load_err("notarray", "base = \"base.toml\"\n[axes]\nseed = 1\n");
    assert!(e.contains("axes.\"seed\"") && e.contains("array"), "{e}");
    let e = load_err("twice", "base = \"base.toml\"\n[axes]\nseed = [1, 1]\n");
    assert!(e.contains("appears twice"), "{e}");
    let e = load_err("nobase", "base = \"nope.toml\"\n[axes]\nseed = [1]\n");
    assert!(e.contains("base") && e.contains("nope.toml"), "{e}");
    let e = load_err("unknown", "base = \"base.toml\"\naxis = 1\n");
    assert!(e.contains("axis"), "{e}");
    let e = load_err(
        "wrongtype",
        "base = \"base.toml\"\n[axes]\nseed = [\"x\"]\n",
    );
    assert!(e.contains("axes.\"seed\"") && e.contains("\"x\""), "{e}");
}

#[test]
fn listed_points_collect_their_keys_as_axes() {
    let p = sweep_file(
        "points",
        "base = \"base.toml\"\npoints = [{ seed = 1 }, { seed = 2, \"cc.algorithm\" = \"dcqcn\" }]\n",
    );
    let s = load_sweep_file(&p).unwrap();
    assert!(!s.grid);
    assert_eq!(s.axes.len(), 2);
    assert_eq!(s.points[1].id, "p001-seed=2-algorithm=dcqcn");
    std::fs::remove_dir_all(p.parent().unwrap()).unwrap();
}
