//! What the RCC (ToN'23) experiments share: the comparators as the paper ran them.
//!
//! RCC §V-A: "We use the open-source code of DCQCN [47], Homa [48] and HPCC in our
//! evaluation and implement ExpressPass and TIMELY based on their algorithms ...
//! For other schemes, we use the parameters suggested in the corresponding
//! papers." HPCC's open-source code is the HPCC ns-3 simulator, so its HPCC is
//! that simulator's (`hpcc-ns3`: the rate-based update once per RTT, MI_THRESH 0)
//! with its run.py settings: RATE_AI 10 x bw / 25 Mb/s (40 Mb/s at 100 Gbps),
//! U_TARGET 0.95. DCQCN [47] is the DCQCN paper's algorithm (`dcqcn`), TIMELY
//! ours from its paper (`timely`). Homa [48] is HomaSimulation's (`homa`, whose
//! defaults are that simulator's), with the core packet spraying RCC §V-C2
//! names and without PFC, as HomaSimulation runs (no pause frames; the 32 MB
//! buffers drop nothing). ExpressPass is ours from its paper and ns-2 code
//! (`expresspass`), without PFC as its ns-2 scripts run, on symmetric ECMP.

/// The `--set` overrides that select scheme `cc` as the RCC paper ran it.
pub fn scheme(cc: &str) -> Vec<String> {
    match cc {
        "hpcc" => vec![
            "cc.algorithm=hpcc-ns3".into(),
            "cc.ns3.rate_ai=\"40Mbps\"".into(),
            "cc.ns3.u_target=0.95".into(),
            "cc.ns3.mi_thresh=0".into(),
        ],
        "homa" => vec![
            "cc.algorithm=homa".into(),
            "switch.load_balancing=\"spray\"".into(),
            "switch.pfc.enabled=false".into(),
        ],
        "expresspass" => vec![
            "cc.algorithm=expresspass".into(),
            "switch.pfc.enabled=false".into(),
        ],
        other => vec![format!("cc.algorithm={other}")],
    }
}

/// `spec` with scheme `cc`'s overrides.
pub fn with_scheme(spec: crate::reproduce::RunSpec, cc: &str) -> crate::reproduce::RunSpec {
    scheme(cc).into_iter().fold(spec, |s, o| s.set(o))
}
