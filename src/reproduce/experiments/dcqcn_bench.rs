//! The benchmark traffic of DCQCN §6.2 (Figs. 15-18), shared by dcqcn-fig16,
//! dcqcn-fig17 and dcqcn-fig18: the Fig. 2 testbed with five hosts per ToR, user
//! traffic between random hosts (dport 200) and one disk-rebuild incast (dport
//! 100) whose receiver and senders are drawn per seed.

use super::dcqcn_util::flow_gbps;
use crate::error::Error;
use crate::reproduce::Finished;

/// Hosts of the testbed (5 per ToR) and the spines' node ids.
pub const HOSTS: u64 = 20;
pub const SPINES: [u32; 2] = [28, 29];
/// Destination ports: the incast keeps the default, user traffic sets 200.
pub const USER_DPORT: u16 = 200;

/// (user traffic duration ms, total incast bytes in MB).
pub fn scale(quick: bool) -> (u64, u64) {
    if quick { (20, 40) } else { (80, 200) }
}

/// SplitMix64: the incast's hosts are drawn from the seed, as the paper draws them
/// at random for each run.
fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Receiver and `k` distinct senders among the hosts, for one seed and degree.
pub fn pick_incast(seed: u64, k: u64) -> (u64, Vec<u64>) {
    let mut st = seed * 1000 + k;
    let mut hosts: Vec<u64> = (0..HOSTS).collect();
    // Fisher-Yates; the first host is the receiver, the next k the senders.
    for i in (1..hosts.len()).rev() {
        let j = (splitmix(&mut st) % (i as u64 + 1)) as usize;
        hosts.swap(i, j);
    }
    (hosts[0], hosts[1..=k as usize].to_vec())
}

/// The overrides that set one run's incast: degree `k` from seed `seed`, the
/// rebuild's `total_mb` split over the senders.
pub fn incast_overrides(seed: u64, k: u64, total_mb: u64) -> Vec<String> {
    let (rx, tx) = pick_incast(seed, k);
    let senders: Vec<String> = tx.iter().map(|h| h.to_string()).collect();
    vec![
        format!("seed={seed}"),
        format!("workload.incast[0].receiver={rx}"),
        format!("workload.incast[0].senders=[{}]", senders.join(",")),
        format!("workload.incast[0].size={}", total_mb * 1_000_000 / k),
    ]
}

/// PAUSE frames received by the spines (`spines_only`) or by every device, from
/// a run's pfc_ports.csv (`node,port,priority,pause_rx,...`).
pub fn pauses(csv: &str, spines_only: bool) -> u64 {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n);
    let (Some(node), Some(rx)) = (col("node"), col("pause_rx")) else {
        return 0;
    };
    lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| {
            !spines_only
                || f.get(node)
                    .and_then(|v| v.parse::<u32>().ok())
                    .is_some_and(|n| SPINES.contains(&n))
        })
        .filter_map(|f| f.get(rx).and_then(|v| v.parse::<u64>().ok()))
        .sum()
}

/// One run's traffic: user and incast flow throughputs (Gbps), PAUSE frames
/// received by the spines and by every device, and drops.
#[derive(Clone, Debug, Default)]
pub struct Traffic {
    pub user: Vec<f64>,
    pub incast: Vec<f64>,
    pub spine_pauses: u64,
    pub all_pauses: u64,
    pub drops: u64,
    /// Incast flows that had not completed when the run stopped.
    pub incast_unfinished: usize,
}

/// Reads run `r`, whose incast has `k` senders. An incast flow that did not
/// complete by the end of the run counts as throughput 0 (it could not recover
/// in the time given).
pub fn traffic(r: &Finished, k: u64) -> Result<Traffic, Error> {
    let mut t = Traffic::default();
    for f in &r.out.fct {
        if f.dport == USER_DPORT {
            t.user.push(flow_gbps(f));
        } else {
            t.incast.push(flow_gbps(f));
        }
    }
    t.incast_unfinished = (k as usize).saturating_sub(t.incast.len());
    t.incast
        .extend(std::iter::repeat_n(0.0, t.incast_unfinished));
    t.drops = r.out.summary.drops;
    if let Some(d) = &r.out.out_dir {
        let f = d.join("pfc_ports.csv");
        let text = std::fs::read_to_string(&f).map_err(|e| Error::io(&f, e))?;
        t.spine_pauses = pauses(&text, true);
        t.all_pauses = pauses(&text, false);
    }
    Ok(t)
}

/// One line chart of a §6.2 panel: a value per scheme against `x`.
pub fn panel(
    dir: &std::path::Path,
    (stem, title): (&str, &str),
    x: crate::plot::AxisSpec,
    y: &str,
    series: Vec<crate::plot::Series>,
) -> Result<(), Error> {
    let fig = crate::plot::Figure::Line(crate::plot::LineChart {
        title: title.into(),
        x,
        y: crate::plot::AxisSpec::linear(y),
        series,
        ..crate::plot::LineChart::default()
    });
    crate::plot::write_figure(dir, stem, &fig)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_incast_draws_distinct_hosts() {
        for k in 2..=10 {
            let (rx, tx) = pick_incast(3, k);
            assert_eq!(tx.len() as u64, k);
            assert!(!tx.contains(&rx));
            let mut t = tx.clone();
            t.sort();
            t.dedup();
            assert_eq!(t.len() as u64, k);
            assert!(tx.iter().all(|&h| h < HOSTS) && rx < HOSTS);
        }
        assert_eq!(pick_incast(1, 4), pick_incast(1, 4));
    }

    #[test]
    fn pauses_sum_pause_rx_of_the_spines_or_of_every_device() {
        let csv = "node,port,priority,pause_rx,resume_rx,expire,paused_ns,pause_tx,resume_tx,ppfc_tx,storm_windows\n\
                   23,0,3,5,5,0,100,0,0,0,0\n\
                   28,1,3,7,7,0,100,0,0,0,0\n\
                   29,2,3,11,11,0,100,2,2,0,0\n";
        assert_eq!(pauses(csv, true), 18);
        assert_eq!(pauses(csv, false), 23);
        assert_eq!(pauses("", true), 0);
    }
}
