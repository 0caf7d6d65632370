//! ai-closed-forms: collectives on an idle non-blocking fabric against the
//! closed forms nccl-tests' doc/PERFORMANCE.md and MPICH state (ai-workloads
//! fact sheet §1, §3; docs/ai-workloads.md). Not a paper's figure: the page
//! counts its rows apart from the papers'.

use crate::error::Error;
use crate::reproduce::{Analysis, Experiment, Finished, Row, Rule, RunSpec, run};
use std::path::Path;

pub struct AiClosedForms;

/// Line rate, link delay, payload and wire bytes of a full packet, ACK bytes.
const RATE: f64 = 100e9;
const DELAY: f64 = 1e-6;
const MTU: f64 = 4096.0;
const WIRE: f64 = MTU + 62.0;
const ACK: f64 = 64.0;

/// Seconds for `bytes` of payload on a link that also carries the ACKs of
/// what its host receives (`acks`), and one packet's one-way latency.
fn send_s(bytes: f64, acks: bool) -> f64 {
    let per = if acks { WIRE + ACK } else { WIRE };
    bytes / MTU * per * 8.0 / RATE
}

fn latency_s() -> f64 {
    2.0 * DELAY + WIRE * 8.0 / RATE
}

/// (ranks, sizes in MB) at each scale.
fn grid(quick: bool) -> (Vec<u32>, Vec<u64>) {
    if quick {
        (vec![4, 8], vec![1, 16])
    } else {
        (vec![4, 8, 16], vec![4, 64])
    }
}

fn ring_name(n: u32, mb: u64) -> String {
    format!("ring-n{n}-{mb}mb")
}

fn hd_name(n: u32, mb: u64) -> String {
    format!("hd-n{n}-{mb}mb")
}

const CHAIN: &str = "chain-n8";
/// The chain's size and chunk count.
const CHAIN_MB: u64 = 8;
const CHAIN_CHUNKS: f64 = 32.0;

/// A run of `op` with `algorithm` over hosts 0..n of `mb` MB.
fn spec(name: String, op: &str, algorithm: &str, n: u32, mb: u64) -> RunSpec {
    RunSpec::new(name, "star.toml")
        .set(format!("workload.collective[0].op=\"{op}\""))
        .set(format!("workload.collective[0].algorithm=\"{algorithm}\""))
        .set(format!("workload.collective[0].size=\"{mb}MB\""))
        .set(format!("workload.collective[0].hosts=[\"0-{}\"]", n - 1))
}

/// The one collective's time in seconds.
fn seconds(f: &Finished) -> f64 {
    f.out
        .collectives
        .first()
        .map_or(f64::NAN, |r| r.duration_ps() as f64 / 1e12)
}

impl Experiment for AiClosedForms {
    fn id(&self) -> &'static str {
        "ai-closed-forms"
    }
    fn title(&self) -> &'static str {
        "collectives on an idle non-blocking fabric against their closed forms"
    }
    fn source(&self) -> &'static str {
        "closed forms: nccl-tests doc/PERFORMANCE.md, MPICH (not a paper)"
    }
    fn runs(&self, quick: bool) -> Vec<RunSpec> {
        let (ns, sizes) = grid(quick);
        let mut v = Vec::new();
        for &n in &ns {
            for &mb in &sizes {
                v.push(spec(ring_name(n, mb), "all-reduce", "ring", n, mb));
                v.push(spec(
                    hd_name(n, mb),
                    "all-reduce",
                    "halving-doubling",
                    n,
                    mb,
                ));
            }
        }
        v.push(
            spec(CHAIN.into(), "broadcast", "ring", 8, CHAIN_MB).set(format!(
                "workload.collective[0].chunk=\"{}B\"",
                CHAIN_MB * 1_000_000 / CHAIN_CHUNKS as u64
            )),
        );
        v
    }
    fn analyze(&self, runs: &[Finished], _dir: &Path, quick: bool) -> Result<Analysis, Error> {
        let mut a = Analysis::default();
        let (ns, sizes) = grid(quick);
        let l = latency_s();
        let within = || Rule::at_most(2.0, "%").partly(5.0);
        let err = |got: f64, want: f64| (got / want - 1.0) * 100.0;
        let mut ring = Vec::new();
        let mut hd = Vec::new();
        for &n in &ns {
            for &mb in &sizes {
                let s = mb as f64 * 1e6;
                let steps = 2.0 * (n as f64 - 1.0);
                let want = steps * (send_s(s / n as f64, true) + l);
                ring.push((n, mb, err(seconds(run(runs, &ring_name(n, mb))), want)));
                let k = n.trailing_zeros() as f64;
                let want = 2.0 * (send_s(s * (1.0 - 1.0 / n as f64), true) + k * l);
                hd.push((n, mb, err(seconds(run(runs, &hd_name(n, mb))), want)));
            }
        }
        let worst = |v: &[(u32, u64, f64)]| v.iter().map(|x| x.2.abs()).fold(0.0, f64::max);
        let list = |v: &[(u32, u64, f64)]| {
            v.iter()
                .map(|(n, mb, e)| format!("N={n} {mb} MB {e:+.2}%"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        a.rows.push(Row::judged(
            "ring all-reduce time",
            "T = 2(N-1) x (S/N / B + L) (nccl-tests: the bandwidth term 2(N-1)/N x S/B)",
            list(&ring),
            worst(&ring),
            &within().of("the largest |T / closed form - 1| over N and S"),
            "B: the host link's goodput (data and the ACKs of what it receives); L: two \
             links and one store-and-forward",
        ));
        a.rows.push(Row::judged(
            "halving-doubling all-reduce time",
            "T = 2 (S (1 - 1/N) / B + log2 N x L) (MPICH's Rabenseifner)",
            list(&hd),
            worst(&hd),
            &within().of("the largest |T / closed form - 1| over N and S"),
            "",
        ));
        // Bus bandwidth at the largest size against the line's goodput.
        let (n, mb) = (*ns.last().expect("ranks"), *sizes.last().expect("sizes"));
        let t = seconds(run(runs, &ring_name(n, mb)));
        let busbw = mb as f64 * 8e6 / t * 2.0 * (n as f64 - 1.0) / n as f64;
        let b = RATE * MTU / WIRE;
        a.rows.push(Row::judged(
            format!("ring all-reduce bus bandwidth, N = {n}, {mb} MB"),
            "approaches the link's goodput B for large S (nccl-tests on real fabrics)",
            format!("{:.1} Gbps of B = {:.1} Gbps", busbw / 1e9, b / 1e9),
            busbw / b * 100.0,
            &Rule::at_least(95.0, "%")
                .partly(90.0)
                .of("bus bandwidth / B"),
            "B here is the line rate x payload / wire bytes of a full packet, ACKs not counted",
        ));
        let s = CHAIN_MB as f64 * 1e6;
        let chunk = s / CHAIN_CHUNKS;
        let want = send_s(chunk, false) + (CHAIN_CHUNKS + 5.0) * send_s(chunk, true) + 7.0 * l;
        let e = err(seconds(run(runs, CHAIN)), want);
        a.rows.push(Row::judged(
            "broadcast chain of 8 in 32 chunks",
            "the root's first chunk, m + N - 3 chunk times of the forwarding ranks, N - 1 hops",
            format!("{e:+.2}% of the closed form"),
            e.abs(),
            &within().of("|T / closed form - 1|"),
            "",
        ));
        a.notes.push(
            "One switch, hosts at 100 Gbps with 1 µs links, 4 KB MTU, no congestion control: \
             every link carries one rank's share, so the time is the closed form's. A rank \
             both sends and receives, so its link carries the ACKs of what it receives (64 B \
             per data packet) beside its data; the chain's root only sends."
                .into(),
        );
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_and_full_runs_load() {
        crate::reproduce::check_all_runs_load(&AiClosedForms);
    }
}
