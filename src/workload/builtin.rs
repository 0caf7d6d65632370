//! Built-in flow-size distributions: every CDF file shipped in `data/` under a
//! short name, embedded in the binary so scenarios work from any directory.
//! `data/workloads/README.md` gives each file's source, mean and caveats; the four
//! HPCC files (HPCC §5.1) are in `data/hpcc-ns3/traffic_gen/`.

use super::cdf::FlowSizeCdf;
use crate::error::InputError;
use std::path::Path;

/// One embedded CDF file.
pub struct Builtin {
    pub name: &'static str,
    /// Path under `data/`.
    pub file: &'static str,
    pub about: &'static str,
    pub text: &'static str,
}

/// Every built-in distribution, the defaults first, then `data/workloads/variants/`.
pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "web-search",
        file: "hpcc-ns3/traffic_gen/WebSearch_distribution.txt",
        about: "Web search (DCTCP), HPCC version; HPCC §5.1's WebSearch",
        text: include_str!("../../data/hpcc-ns3/traffic_gen/WebSearch_distribution.txt"),
    },
    Builtin {
        name: "fb-hadoop",
        file: "hpcc-ns3/traffic_gen/FbHdp_distribution.txt",
        about: "Facebook Hadoop, HPCC version; HPCC §5.1's FB_Hadoop",
        text: include_str!("../../data/hpcc-ns3/traffic_gen/FbHdp_distribution.txt"),
    },
    Builtin {
        name: "google-rpc",
        file: "hpcc-ns3/traffic_gen/GoogleRPC2008.txt",
        about: "Google RPC (2008), HPCC version",
        text: include_str!("../../data/hpcc-ns3/traffic_gen/GoogleRPC2008.txt"),
    },
    Builtin {
        name: "ali-storage",
        file: "hpcc-ns3/traffic_gen/AliStorage2019.txt",
        about: "Alibaba storage 2019, HPCC version",
        text: include_str!("../../data/hpcc-ns3/traffic_gen/AliStorage2019.txt"),
    },
    Builtin {
        name: "data-mining",
        file: "workloads/data_mining.txt",
        about: "Data mining (VL2), pFabric/PIAS version",
        text: include_str!("../../data/workloads/data_mining.txt"),
    },
    Builtin {
        name: "fb-webserver",
        file: "workloads/fb_webserver.txt",
        about: "Facebook web server (Homa W8)",
        text: include_str!("../../data/workloads/fb_webserver.txt"),
    },
    Builtin {
        name: "fb-cachefollower",
        file: "workloads/fb_cachefollower.txt",
        about: "Facebook cache follower (Homa W7)",
        text: include_str!("../../data/workloads/fb_cachefollower.txt"),
    },
    Builtin {
        name: "homa-w1",
        file: "workloads/homa_w1_fb_keyvalue.txt",
        about: "Homa W1: Facebook memcached key-value",
        text: include_str!("../../data/workloads/homa_w1_fb_keyvalue.txt"),
    },
    Builtin {
        name: "homa-w2",
        file: "workloads/homa_w2_google_search_rpc.txt",
        about: "Homa W2: Google search RPC",
        text: include_str!("../../data/workloads/homa_w2_google_search_rpc.txt"),
    },
    Builtin {
        name: "homa-w3",
        file: "workloads/homa_w3_google_all_rpc.txt",
        about: "Homa W3: Google all RPC",
        text: include_str!("../../data/workloads/homa_w3_google_all_rpc.txt"),
    },
    Builtin {
        name: "homa-w4",
        file: "workloads/homa_w4_fb_hadoop.txt",
        about: "Homa W4: Facebook Hadoop",
        text: include_str!("../../data/workloads/homa_w4_fb_hadoop.txt"),
    },
    Builtin {
        name: "homa-w5",
        file: "workloads/homa_w5_dctcp_websearch.txt",
        about: "Homa W5: DCTCP web search (Homa's variant)",
        text: include_str!("../../data/workloads/homa_w5_dctcp_websearch.txt"),
    },
    Builtin {
        name: "alibaba-solar2022",
        file: "workloads/variants/alibaba_solar2022.txt",
        about: "Alibaba storage Solar2022 (ConWeave)",
        text: include_str!("../../data/workloads/variants/alibaba_solar2022.txt"),
    },
    Builtin {
        name: "cache-mqecn",
        file: "workloads/variants/cache_mqecn.txt",
        about: "\"cache\" of the MQ-ECN paper",
        text: include_str!("../../data/workloads/variants/cache_mqecn.txt"),
    },
    Builtin {
        name: "data-mining-ns3datacenter",
        file: "workloads/variants/data_mining_ns3datacenter.txt",
        about: "Data mining, ABM/Credence ns-3 version",
        text: include_str!("../../data/workloads/variants/data_mining_ns3datacenter.txt"),
    },
    Builtin {
        name: "data-mining-tlt-conweave",
        file: "workloads/variants/data_mining_tlt_conweave.txt",
        about: "Data mining, TLT/ConWeave version",
        text: include_str!("../../data/workloads/variants/data_mining_tlt_conweave.txt"),
    },
    Builtin {
        name: "data-mining-trafficgen",
        file: "workloads/variants/data_mining_trafficgen.txt",
        about: "Data mining, HKUST TrafficGenerator bytes version",
        text: include_str!("../../data/workloads/variants/data_mining_trafficgen.txt"),
    },
    Builtin {
        name: "fb-cachefollower-tlt-conweave",
        file: "workloads/variants/fb_cachefollower_tlt_conweave.txt",
        about: "Facebook cache follower, TLT/ConWeave 23-point version",
        text: include_str!("../../data/workloads/variants/fb_cachefollower_tlt_conweave.txt"),
    },
    Builtin {
        name: "fb-hadoop-conweave",
        file: "workloads/variants/fb_hadoop_conweave.txt",
        about: "Facebook Hadoop, ConWeave (Homa W4 points, read linearly)",
        text: include_str!("../../data/workloads/variants/fb_hadoop_conweave.txt"),
    },
    Builtin {
        name: "fb-webserver-tlt-conweave",
        file: "workloads/variants/fb_webserver_tlt_conweave.txt",
        about: "Facebook web server, TLT/ConWeave 13-point version",
        text: include_str!("../../data/workloads/variants/fb_webserver_tlt_conweave.txt"),
    },
    Builtin {
        name: "hadoop-mqecn",
        file: "workloads/variants/hadoop_mqecn.txt",
        about: "\"hadoop\" of the MQ-ECN paper",
        text: include_str!("../../data/workloads/variants/hadoop_mqecn.txt"),
    },
    Builtin {
        name: "hadoop-ns3datacenter",
        file: "workloads/variants/hadoop_ns3datacenter.txt",
        about: "\"hadoop\" of ABM/Credence",
        text: include_str!("../../data/workloads/variants/hadoop_ns3datacenter.txt"),
    },
    Builtin {
        name: "web-search-ns3datacenter",
        file: "workloads/variants/web_search_ns3datacenter.txt",
        about: "Web search, PowerTCP/ABM ns-3 version",
        text: include_str!("../../data/workloads/variants/web_search_ns3datacenter.txt"),
    },
    Builtin {
        name: "web-search-pfabric",
        file: "workloads/variants/web_search_pfabric.txt",
        about: "Web search, pFabric/PIAS ns-2 packet version",
        text: include_str!("../../data/workloads/variants/web_search_pfabric.txt"),
    },
    Builtin {
        name: "web-search-tlt-conweave",
        file: "workloads/variants/web_search_tlt_conweave.txt",
        about: "Web search, TLT/ConWeave version",
        text: include_str!("../../data/workloads/variants/web_search_tlt_conweave.txt"),
    },
];

/// The built-in names, comma-separated (for error messages).
pub fn names() -> String {
    BUILTINS
        .iter()
        .map(|b| b.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Loads a built-in distribution by name.
pub fn builtin(name: &str) -> Option<Result<FlowSizeCdf, InputError>> {
    BUILTINS.iter().find(|b| b.name == name).map(|b| {
        let mut c = FlowSizeCdf::parse(&format!("built-in {} (data/{})", b.name, b.file), b.text)?;
        c.name = b.name.to_string();
        Ok(c)
    })
}

/// A built-in name, or else a path to a CDF file (relative paths are joined to
/// `base`, the scenario's directory). `field` names the scenario key in errors.
pub fn resolve_cdf(
    spec: &str,
    base: &Path,
    source: &str,
    field: &str,
) -> Result<FlowSizeCdf, InputError> {
    if let Some(c) = builtin(spec) {
        return c;
    }
    let p = Path::new(spec);
    let path = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    match crate::limits::read_text(&path) {
        Ok(text) => FlowSizeCdf::parse(&path.display().to_string(), &text),
        Err(e) => Err(InputError::new(
            source,
            field,
            format!(
                "\"{spec}\" is not a built-in distribution and cannot be read as a file ({}: {e}); built-ins: {}",
                path.display(),
                names()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_loads_and_has_a_unique_name() {
        for b in BUILTINS {
            let c = builtin(b.name).unwrap().unwrap_or_else(|e| panic!("{e}"));
            assert!(c.mean() > 0.0, "{}", b.name);
            assert_eq!(BUILTINS.iter().filter(|x| x.name == b.name).count(), 1);
        }
        assert_eq!(BUILTINS.len(), 25);
    }

    #[test]
    fn means_match_the_readme() {
        // data/workloads/README.md, "mean flow size (B)".
        for (name, mean) in [
            ("web-search", 1_711_250.0),
            ("fb-hadoop", 120_421.0),
            ("google-rpc", 2_892.0),
            ("ali-storage", 40_870.0),
            ("data-mining", 7_470_236.0),
            ("fb-webserver", 62_874.0),
            ("fb-cachefollower", 692_976.0),
            ("homa-w1", 187.5),
            ("homa-w4", 127_797.0),
            ("homa-w5", 2_564_715.0),
            ("alibaba-solar2022", 39_424.0),
        ] {
            let m = builtin(name).unwrap().unwrap().mean();
            assert!((m - mean).abs() / mean < 1e-3, "{name}: {m} vs {mean}");
        }
    }

    #[test]
    fn unknown_names_list_the_builtins() {
        let e = resolve_cdf(
            "websearch",
            Path::new("/nonexistent"),
            "s.toml",
            "workload.poisson[0].cdf",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("s.toml: workload.poisson[0].cdf: \"websearch\""),
            "{e}"
        );
        assert!(e.contains("web-search, fb-hadoop"), "{e}");
    }
}
