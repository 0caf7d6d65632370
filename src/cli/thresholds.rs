//! `rocesim thresholds`: DCQCN §4's buffer thresholds for a switch
//! (`switch::thresholds`).

use crate::error::{Error, InputError};
use crate::switch::thresholds::{SwitchBuffer, headroom};
use crate::units::{parse_bytes, parse_rate};

#[derive(clap::Args, Debug)]
pub struct ThresholdsArgs {
    /// Total switch buffer B, e.g. 12MB.
    #[arg(long)]
    pub buffer: String,
    /// Number of ports n.
    #[arg(long)]
    pub ports: u64,
    /// Port rate, e.g. 40Gbps.
    #[arg(long)]
    pub rate: String,
    /// Lossless classes (DCQCN counts all 8).
    #[arg(long, default_value_t = 8)]
    pub classes: u64,
    /// IP MTU in bytes.
    #[arg(long, default_value_t = 1500)]
    pub mtu: u64,
    /// Dynamic threshold parameter beta (t_PFC = beta (B - 8 n t_flight - s) / 8).
    #[arg(long)]
    pub beta: Option<f64>,
    /// Headroom per port and class; default: the IEEE 802.1Qbb worst case.
    #[arg(long = "t-flight")]
    pub t_flight: Option<String>,
    /// Cable length in metres for the worst case (5 ns/m).
    #[arg(long, default_value_t = 100.0)]
    pub cable: f64,
}

fn bad(flag: &str, msg: impl Into<String>) -> Error {
    InputError::new(flag, "", msg).into()
}

/// KB (1000 B) with two decimals, rounded down (the values are upper bounds).
fn kb(b: u64) -> String {
    format!("{}.{:02} KB", b / 1000, b % 1000 / 10)
}

pub fn thresholds(a: &ThresholdsArgs) -> Result<(), Error> {
    let buffer = parse_bytes(&a.buffer).map_err(|e| bad("--buffer", e))?;
    let rate = parse_rate(&a.rate).map_err(|e| bad("--rate", e))?;
    if a.ports == 0 {
        return Err(bad("--ports", "must be >= 1"));
    }
    if !(1..=8).contains(&a.classes) {
        return Err(bad("--classes", format!("{}; valid: 1..8", a.classes)));
    }
    if !(64..=9216).contains(&a.mtu) {
        return Err(bad("--mtu", format!("{} bytes; valid: 64..9216", a.mtu)));
    }
    if let Some(b) = a.beta
        && !(b > 0.0 && b.is_finite())
    {
        return Err(bad("--beta", format!("{b} must be > 0, e.g. 8")));
    }
    if !(a.cable >= 0.0 && a.cable.is_finite()) {
        return Err(bad("--cable", format!("{} metres must be >= 0", a.cable)));
    }
    let (t_flight, how) = match &a.t_flight {
        Some(t) => (
            parse_bytes(t).map_err(|e| bad("--t-flight", e))?,
            "given".to_string(),
        ),
        None => {
            let h = headroom(rate, a.mtu, a.cable).ok_or_else(|| {
                bad(
                    "--rate",
                    format!(
                        "{rate}: no IEEE 802.3 delay table for this rate (10, 25, 40 or 100 Gbps); give --t-flight"
                    ),
                )
            })?;
            let how = format!(
                "IEEE 802.1Qbb worst case: frames 2 x {} B, PAUSE {} B, interfaces {} B, {} m cable both ways {} B, response {} B",
                h.frame_at_receiver, h.pause, h.interfaces, a.cable, h.cable, h.response
            );
            (h.total(), how)
        }
    };
    let s = SwitchBuffer {
        buffer,
        ports: a.ports,
        classes: a.classes,
        t_flight,
    };
    let c = a.classes;
    outln!(
        "DCQCN §4 thresholds: B = {buffer} B, n = {} ports at {rate}, {c} lossless classes, MTU {} B",
        a.ports,
        a.mtu
    );
    outln!("  t_flight  = {:>10}  ({t_flight} B; {how})", kb(t_flight));
    let Some(t_pfc) = s.t_pfc_static() else {
        return Err(bad(
            "--buffer",
            format!(
                "{buffer} B is used up by headroom ({c} x {} ports x {t_flight} B): no PFC threshold is left",
                a.ports
            ),
        ));
    };
    outln!(
        "  t_PFC    <= {:>10}  ({t_pfc} B; static, (B - {c} n t_flight) / ({c} n))",
        kb(t_pfc)
    );
    let t_ecn = s.t_ecn_static().expect("t_PFC exists");
    let note = if t_ecn < a.mtu {
        "below one MTU: infeasible"
    } else {
        "feasible"
    };
    outln!(
        "  t_ECN    <  {:>10}  ({t_ecn} B; static, t_PFC / n: {note})",
        kb(t_ecn)
    );
    if let Some(beta) = a.beta {
        let full = s.t_pfc_dynamic(beta, 0).expect("t_PFC exists");
        outln!(
            "  t_PFC     = beta (B - {c} n t_flight - s) / {c} = {} at s = 0 (alpha = {} of the free buffer)",
            kb(full),
            s.alpha_for_beta(beta)
        );
        let e = s.t_ecn_dynamic(beta).expect("t_PFC exists");
        outln!(
            "  t_ECN    <  {:>10}  ({e} B; dynamic, beta = {beta}: beta (B - {c} n t_flight) / ({c} n (beta + 1)))",
            kb(e)
        );
    }
    Ok(())
}
