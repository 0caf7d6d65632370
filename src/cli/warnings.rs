//! Warnings about a scenario that is valid but likely not what was meant: it
//! runs, yet a setting does nothing or makes the run mostly retransmissions.
//! `validate` and `run` print them as `warning: ` lines on stderr.

use crate::config::RunConfig;
use crate::units::Delta;

/// The warnings for `cfg`, each a line naming the scenario and the field.
pub fn scenario_warnings(cfg: &RunConfig) -> Vec<String> {
    let mut v = Vec::new();
    if cfg.flows.is_empty() {
        v.push(format!(
            "{}: workload: no flows; a run would simulate nothing (add [[workload.flows]] or a generator table)",
            cfg.source
        ));
    }
    v.extend(rto_warning(cfg));
    v.extend(unused_cc_tables(cfg));
    v
}

/// The least round trip of any host pair: each way crosses the sender's and the
/// receiver's host links at least (every host has one link).
fn least_rtt(cfg: &RunConfig) -> Delta {
    let topo = &cfg.topo;
    let min = topo
        .hosts
        .iter()
        .map(|&h| topo.host_port(h).delay.ps())
        .min()
        .unwrap_or(0);
    Delta::from_ps(min.saturating_mul(4))
}

/// A retransmission timeout below the base RTT fires before any ACK can
/// return: every packet is sent again, for nothing.
fn rto_warning(cfg: &RunConfig) -> Option<String> {
    let rto = cfg.nic.rto?;
    let rtt = least_rtt(cfg);
    (rto < rtt).then(|| {
        format!(
            "{}: nic.rto: {rto} is below the base round-trip time (at least {rtt} here): \
             packets time out before their ACK can return and are sent again (valid: above \
             the base RTT; the default is 10ms with PFC, 1ms without)",
            cfg.source
        )
    })
}

/// `[cc.X]` tables the chosen algorithm does not read (from the effective
/// scenario's text): their settings change nothing.
fn unused_cc_tables(cfg: &RunConfig) -> Vec<String> {
    let Ok(table) = cfg.scenario_text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let Some(cc) = table.get("cc").and_then(toml::Value::as_table) else {
        return Vec::new();
    };
    let algorithm = cc
        .get("algorithm")
        .and_then(toml::Value::as_str)
        .unwrap_or("none");
    let used = crate::cc::table_of(algorithm);
    cc.iter()
        .filter(|(k, v)| v.is_table() && Some(k.as_str()) != used)
        .map(|(k, _)| {
            let readers = crate::cc::readers_of(k);
            format!(
                "{}: cc.{k}: ignored: cc.algorithm = \"{algorithm}\" does not read it ([cc.{k}] \
                 is for {readers}; remove it or change cc.algorithm)",
                cfg.source
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warnings(text: &str, overrides: &[&str]) -> Vec<String> {
        let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let src = crate::scenario::Source::text(text, "s.toml", &base, "s");
        let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        scenario_warnings(&crate::scenario::to_config(&src, &o).unwrap())
    }

    const INCAST: &str = "[topology]\nkind = \"star\"\nhosts = 9\nrate = \"100Gbps\"\ndelay = \"1us\"\n\
                          [cc]\nalgorithm = \"hpcc\"\n\
                          [[workload.incast]]\nfan_in = 8\nreceiver = 0\nsize = \"1MB\"\n";

    #[test]
    fn a_valid_scenario_has_no_warnings() {
        assert_eq!(warnings(INCAST, &[]), Vec::<String>::new());
    }

    #[test]
    fn an_rto_of_1ns_is_below_the_base_rtt_and_warned_about() {
        // Issue 42 item 8: 5,687 timeouts on an 8-flow incast, silently.
        let w = warnings(INCAST, &["nic.rto=\"1ns\""]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("s.toml: nic.rto: 1ns is below the base round-trip time"),
            "{w:?}"
        );
        assert!(w[0].contains("at least 4us"), "{w:?}");
        assert!(warnings(INCAST, &["nic.rto=\"5us\""]).is_empty());
    }

    #[test]
    fn a_dcqcn_table_under_hpcc_is_warned_about() {
        // Issue 42 item 8: `[cc.dcqcn]` while `algorithm = "hpcc"`.
        let text = format!("{INCAST}[cc.dcqcn]\ng = 0.5\n");
        let w = warnings(&text, &[]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("s.toml: cc.dcqcn: ignored: cc.algorithm = \"hpcc\" does not read it"),
            "{w:?}"
        );
        assert!(w[0].contains("dcqcn and dcqcn+win"), "{w:?}");
        assert!(warnings(&text, &["cc.algorithm=\"dcqcn+win\""]).is_empty());
    }
}
