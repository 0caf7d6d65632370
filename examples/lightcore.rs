//! A floor under rocesim's speed: the same topology, routes and flows as a
//! rocesim scenario, moved by the least a store-and-forward packet simulator
//! must do, with rocesim's event queue and its event structure (one pending
//! arrival per link, the head of its ring of packets in flight; one
//! transmission end per busy port; flow starts as timers), and nothing else:
//! FIFO ports with unbounded buffers, no classes, no MMU, no PFC, no ECN, no
//! INT, no congestion control (a flow keeps a fixed window of one
//! bandwidth-delay product in flight, the receiver returns an ACK a packet),
//! ECMP by one multiplication. Its results are not a model of anything; its
//! speed is what this implementation of that structure costs on the machine
//! (docs/performance.md, "The kernel's floor"). It has none of rocesim's
//! cache hints.
//!
//! `--with` adds the memory traffic of one of rocesim's mechanisms, without
//! its decisions:
//!
//! - `int`: each switch writes a 32-byte record into a data packet's INT
//!   array as it transmits it (five a packet at most, beside the header); the
//!   ACK carries them back and the sender reads them all (HPCC §3.2).
//! - `mmu`: each switch charges a packet to its (ingress port, class) shared
//!   or headroom counter, by a dynamic threshold of 1/8 of its free shared
//!   pool (HPCC §5.1; a 16 MB pool), and to its (egress port, class) counter,
//!   and releases them when the packet leaves (DCQCN §4).
//! - `cc`: a per-flow state of two cache lines that every data packet reads
//!   and every ACK writes, as a congestion control's does.
//!
//! Layouts: by default a packet is a 64-byte line in a pool, its INT records
//! in a parallel array, and the rings and queues hold its index (as in
//! rocesim); `--compact` packs it in 24 bytes; `--by-value` (with `--with
//! int`) moves it with its INT records, 184 bytes, through the rings and
//! queues. `--fifo-departures` has each switch put a packet on its link as it
//! arrives, to leave when the port frees, as a FIFO port allows: no
//! transmission-end events at switches (rocesim's ports, with classes and
//! PAUSE, cannot do this). Run it with the heap on huge pages, as rocesim
//! runs itself:
//!
//! ```text
//! cargo build --release --example lightcore
//! GLIBC_TUNABLES=glibc.malloc.hugetlb=1 target/release/examples/lightcore scenarios/fattree-fbhdp-30pct-1ms-hpcc.toml
//! GLIBC_TUNABLES=glibc.malloc.hugetlb=1 target/release/examples/lightcore scenarios/incast-16to1-hpcc.toml --repeat 30 --with int,mmu,cc
//! ```

use clap::{CommandFactory, Parser, ValueEnum, error::ErrorKind};
use rocesim::config::RunConfig;
use rocesim::engine::{Bits, EventQueue};
use rocesim::packet::MAX_INT_HOPS;
use rocesim::port::CLASSES;
use rocesim::scenario::{Source, to_config};
use rocesim::topology::{NodeId, NodeKind};
use rocesim::units::{Delta, Rate, SimTime};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::Instant;

/// An ACK's wire size before INT.
const ACK_WIRE: u32 = 64;
/// Bytes of INT a record adds to the wire.
const INT_WIRE: u32 = 8;
/// The shared pool each switch's dynamic threshold is computed on (`mmu`).
const SHARED_POOL: u64 = 16_000_000;
/// The data class packets are charged to (`mmu`).
const CLASS: usize = 3;

#[derive(Parser)]
#[command(
    name = "lightcore",
    about = "Moves a scenario's packets with rocesim's event queue and nothing else (docs/performance.md, \"The kernel's floor\")"
)]
struct Args {
    /// A rocesim scenario: its fabric, routes and flows are used.
    scenario: PathBuf,
    /// Scenario overrides, as `rocesim run --set key=value`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Mechanisms whose memory traffic to add.
    #[arg(long, value_delimiter = ',')]
    with: Vec<Mechanism>,
    /// Packets in 24 bytes instead of a 64-byte line.
    #[arg(long, conflicts_with = "by_value")]
    compact: bool,
    /// Packets and their INT records moved by value through rings and queues.
    #[arg(long)]
    by_value: bool,
    /// Switches put packets on the link as they arrive (FIFO departures).
    #[arg(long)]
    fifo_departures: bool,
    /// Runs; the best is reported.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Mechanism {
    Int,
    Mmu,
    Cc,
}

/// Which mechanisms' memory traffic a run adds.
#[derive(Clone, Copy, Default)]
struct With {
    int: bool,
    mmu: bool,
    cc: bool,
}

/// The kernel's events; an index fits in 30 bits (checked at setup).
#[derive(Clone, Copy)]
enum Event {
    /// The packet at the head of link `link`'s ring lands.
    Arrive { link: u32 },
    /// Port `port`'s transmission ends, or a host port looks again.
    TxDone { port: u32 },
    /// Flow `flow` starts.
    Start { flow: u32 },
}

const INDEX_BITS: u32 = 30;
const INDEX: u32 = (1 << INDEX_BITS) - 1;

impl Bits for Event {
    fn to_bits(self) -> u32 {
        match self {
            Event::Arrive { link } => link,
            Event::TxDone { port } => 1 << INDEX_BITS | port,
            Event::Start { flow } => 2 << INDEX_BITS | flow,
        }
    }
    fn from_bits(bits: u32) -> Event {
        let ix = bits & INDEX;
        match bits >> INDEX_BITS {
            0 => Event::Arrive { link: ix },
            1 => Event::TxDone { port: ix },
            _ => Event::Start { flow: ix },
        }
    }
}

/// What the kernel keeps of a packet (24 bytes).
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Pkt {
    flow: u32,
    dst: NodeId,
    wire: u32,
    payload: u32,
    /// The switch port it entered the current switch by (`mmu`).
    in_port: u32,
    hops: u8,
    ack: bool,
    /// Charged to headroom rather than the shared pool (`mmu`).
    hdrm: bool,
}

/// A packet in a cache line of its own, as rocesim's header is.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Line(Pkt);

/// How a pool holds a packet: in a line of its own or packed.
trait Header: Copy + Default {
    fn new(p: Pkt) -> Self;
    fn get(&self) -> &Pkt;
    fn get_mut(&mut self) -> &mut Pkt;
}

impl Header for Line {
    fn new(p: Pkt) -> Line {
        Line(p)
    }
    fn get(&self) -> &Pkt {
        &self.0
    }
    fn get_mut(&mut self) -> &mut Pkt {
        &mut self.0
    }
}

impl Header for Pkt {
    fn new(p: Pkt) -> Pkt {
        p
    }
    fn get(&self) -> &Pkt {
        self
    }
    fn get_mut(&mut self) -> &mut Pkt {
        self
    }
}

/// An INT record (rocesim's is 32 bytes).
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Hop {
    ts_ps: u64,
    tx_bytes: u64,
    qlen_bytes: u64,
    rate: u64,
}

/// How packets are kept while they travel: what the rings and queues hold.
trait Store: Default {
    type P;
    fn alloc(&mut self, pkt: Pkt) -> Self::P;
    fn free(&mut self, p: Self::P);
    fn pkt<'a>(&'a self, p: &'a Self::P) -> &'a Pkt;
    fn pkt_mut<'a>(&'a mut self, p: &'a mut Self::P) -> &'a mut Pkt;
    fn int<'a>(&'a self, p: &'a Self::P) -> &'a [Hop; MAX_INT_HOPS];
    fn int_mut<'a>(&'a mut self, p: &'a mut Self::P) -> &'a mut [Hop; MAX_INT_HOPS];
    /// Packets allocated and not freed.
    fn in_use(&self) -> usize;
    /// Most packets ever in use at once.
    fn peak(&self) -> usize;
    /// Bytes a packet takes.
    fn packet_bytes(&self) -> usize;
}

/// A pool of headers `H` with the INT records in a parallel array, reused
/// last freed first; the rings and queues hold indices.
#[derive(Default)]
struct Pooled<H> {
    pool: Vec<H>,
    int: Vec<[Hop; MAX_INT_HOPS]>,
    free: Vec<u32>,
}

impl<H: Header> Store for Pooled<H> {
    type P = u32;
    fn alloc(&mut self, pkt: Pkt) -> u32 {
        let id = self.free.pop().unwrap_or_else(|| {
            self.pool.push(H::default());
            self.int.push([Hop::default(); MAX_INT_HOPS]);
            self.pool.len() as u32 - 1
        });
        self.pool[id as usize] = H::new(pkt);
        id
    }
    fn free(&mut self, id: u32) {
        self.free.push(id);
    }
    fn pkt<'a>(&'a self, id: &'a u32) -> &'a Pkt {
        self.pool[*id as usize].get()
    }
    fn pkt_mut<'a>(&'a mut self, id: &'a mut u32) -> &'a mut Pkt {
        self.pool[*id as usize].get_mut()
    }
    fn int<'a>(&'a self, id: &'a u32) -> &'a [Hop; MAX_INT_HOPS] {
        &self.int[*id as usize]
    }
    fn int_mut<'a>(&'a mut self, id: &'a mut u32) -> &'a mut [Hop; MAX_INT_HOPS] {
        &mut self.int[*id as usize]
    }
    fn in_use(&self) -> usize {
        self.pool.len() - self.free.len()
    }
    fn peak(&self) -> usize {
        self.pool.len()
    }
    fn packet_bytes(&self) -> usize {
        size_of::<H>()
    }
}

/// A packet moved by value: its 24 bytes and its INT records.
struct Moving {
    pkt: Pkt,
    int: [Hop; MAX_INT_HOPS],
}

/// Packets by value; the store only counts them.
#[derive(Default)]
struct ByValue {
    live: usize,
    peak: usize,
}

impl Store for ByValue {
    type P = Moving;
    fn alloc(&mut self, pkt: Pkt) -> Moving {
        self.live += 1;
        self.peak = self.peak.max(self.live);
        Moving {
            pkt,
            int: [Hop::default(); MAX_INT_HOPS],
        }
    }
    fn free(&mut self, _: Moving) {
        self.live -= 1;
    }
    fn pkt<'a>(&'a self, p: &'a Moving) -> &'a Pkt {
        &p.pkt
    }
    fn pkt_mut<'a>(&'a mut self, p: &'a mut Moving) -> &'a mut Pkt {
        &mut p.pkt
    }
    fn int<'a>(&'a self, p: &'a Moving) -> &'a [Hop; MAX_INT_HOPS] {
        &p.int
    }
    fn int_mut<'a>(&'a mut self, p: &'a mut Moving) -> &'a mut [Hop; MAX_INT_HOPS] {
        &mut p.int
    }
    fn in_use(&self) -> usize {
        self.live
    }
    fn peak(&self) -> usize {
        self.peak
    }
    fn packet_bytes(&self) -> usize {
        size_of::<Moving>()
    }
}

/// A congestion control's per-flow state (`cc`).
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct CcState {
    words: [u64; 16],
}

struct Port<P> {
    busy_until_ps: u64,
    /// A transmission end (or a host's look) is pending.
    tx_pending: bool,
    queue: VecDeque<P>,
    queued_bytes: u64,
    tx_bytes: u64,
    rate: Rate,
    delay_ps: u64,
    /// The node at the link's other end and the port it lands on.
    peer: NodeId,
    peer_port: u32,
}

struct Flow {
    host: u32,
    dst: NodeId,
    size: u64,
    sent: u64,
    acked: u64,
    inflight: u64,
}

struct Host<P> {
    port: u32,
    /// ACKs to send, before data.
    ctrl: VecDeque<P>,
    /// Started flows not yet acknowledged, served round robin from `rr`.
    active: Vec<u32>,
    rr: usize,
}

/// A node's place among hosts or switches.
#[derive(Clone, Copy)]
enum Role {
    Host(u32),
    Switch(u32),
}

struct Kernel<S: Store> {
    q: EventQueue<Event>,
    store: S,
    /// Every node's ports, node after node; a port's id is its link's.
    ports: Vec<Port<S::P>>,
    /// Each link's packets in flight with their landing times, earliest first.
    rings: Vec<VecDeque<(u64, S::P)>>,
    /// The first port id of each node.
    base: Vec<u32>,
    role: Vec<Role>,
    /// The node owning each port.
    owner: Vec<NodeId>,
    hosts: Vec<Host<S::P>>,
    node_of_host: Vec<NodeId>,
    flows: Vec<Flow>,
    cc: Vec<CcState>,
    /// Per (port, class): the ingress charges, shared and headroom side by
    /// side (`mmu`).
    charge_in: Vec<[u64; 2]>,
    /// Per (port, class): the bytes queued for it (`mmu`).
    charge_eg: Vec<u64>,
    /// Per switch: its shared pool in use (`mmu`).
    shared_used: Vec<u64>,
    routes: rocesim::topology::routing::Routes,
    window: u64,
    mtu: u32,
    mtu_wire: u32,
    with: With,
    fifo_departures: bool,
    done: usize,
    tx: u64,
}

impl<S: Store> Kernel<S> {
    fn schedule(&mut self, at_ps: u64, ev: Event) {
        self.q.schedule(SimTime(at_ps), ev);
    }

    /// Puts packet `p` on `port`'s link at `start_ps`, when the port is free.
    fn transmit(&mut self, port: u32, p: S::P, start_ps: u64) {
        self.tx += 1;
        let wire = self.store.pkt(&p).wire as u64;
        let pt = &mut self.ports[port as usize];
        let end_ps = start_ps + pt.rate.tx_time(wire).ps();
        pt.busy_until_ps = end_ps;
        pt.tx_bytes += wire;
        let land_ps = end_ps + pt.delay_ps;
        let ring = &mut self.rings[port as usize];
        ring.push_back((land_ps, p));
        if ring.len() == 1 {
            self.schedule(land_ps, Event::Arrive { link: port });
        }
    }

    /// A switch's INT record, written into a data packet as it leaves.
    fn stamp(&mut self, p: &mut S::P, ts_ps: u64, tx_bytes: u64, qlen_bytes: u64) {
        let pkt = self.store.pkt(p);
        let h = pkt.hops as usize;
        if pkt.ack || h >= MAX_INT_HOPS {
            return;
        }
        self.store.int_mut(p)[h] = Hop {
            ts_ps,
            tx_bytes,
            qlen_bytes,
            rate: 1,
        };
        let pkt = self.store.pkt_mut(p);
        pkt.hops += 1;
        pkt.wire += INT_WIRE;
    }

    /// Releases a leaving packet's charges at switch `sw` (`mmu`).
    fn release(&mut self, sw: u32, port: u32, p: &S::P, wire: u64) {
        let pkt = self.store.pkt(p);
        let c = &mut self.charge_in[pkt.in_port as usize * CLASSES + CLASS];
        if pkt.hdrm {
            c[1] -= wire;
        } else {
            c[0] -= wire;
            self.shared_used[sw as usize] -= wire;
        }
        self.charge_eg[port as usize * CLASSES + CLASS] -= wire;
    }

    fn switch_start_tx(&mut self, sw: u32, port: u32, now: u64) {
        let pt = &mut self.ports[port as usize];
        let Some(mut p) = pt.queue.pop_front() else {
            return;
        };
        let wire = self.store.pkt(&p).wire as u64;
        pt.queued_bytes -= wire;
        if self.with.int {
            let (tx_bytes, qlen) = (pt.tx_bytes, pt.queued_bytes);
            self.stamp(&mut p, now, tx_bytes, qlen);
        }
        if self.with.mmu {
            self.release(sw, port, &p, wire);
        }
        self.transmit(port, p, now);
        let pt = &mut self.ports[port as usize];
        if !pt.queue.is_empty() {
            pt.tx_pending = true;
            let at = pt.busy_until_ps;
            self.schedule(at, Event::TxDone { port });
        }
    }

    fn switch_arrive(&mut self, node: NodeId, sw: u32, in_port: u32, mut p: S::P, now: u64) {
        let base = self.base[node.idx()];
        let pkt = self.store.pkt_mut(&mut p);
        let hops = self.routes.next_hops(sw, pkt.dst);
        if hops.is_empty() {
            fail(&format!(
                "flow {}: switch {node} has no route to node {}",
                pkt.flow, pkt.dst
            ));
        }
        let hash = (pkt.flow as u64 ^ (sw as u64) << 32).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let port = base + hops[(((hash >> 32) * hops.len() as u64) >> 32) as usize] as u32;
        let wire = pkt.wire as u64;
        if self.with.mmu {
            let ip = base + in_port;
            pkt.in_port = ip;
            let used = &mut self.shared_used[sw as usize];
            let free = SHARED_POOL.saturating_sub(*used);
            let c = &mut self.charge_in[ip as usize * CLASSES + CLASS];
            pkt.hdrm = (c[0] + wire) as f64 > free as f64 * 0.125;
            if pkt.hdrm {
                c[1] += wire;
            } else {
                c[0] += wire;
                *used += wire;
            }
            self.charge_eg[port as usize * CLASSES + CLASS] += wire;
        }
        if self.fifo_departures {
            let pt = &self.ports[port as usize];
            let start_ps = now.max(pt.busy_until_ps);
            if self.with.int {
                let qlen = pt.rate.bytes_in(Delta::from_ps(start_ps - now));
                let tx_bytes = pt.tx_bytes;
                self.stamp(&mut p, start_ps, tx_bytes, qlen);
            }
            self.transmit(port, p, start_ps);
            return;
        }
        let pt = &mut self.ports[port as usize];
        pt.queue.push_back(p);
        pt.queued_bytes += wire;
        if !pt.tx_pending {
            if pt.busy_until_ps <= now {
                self.switch_start_tx(sw, port, now);
            } else {
                pt.tx_pending = true;
                let at = pt.busy_until_ps;
                self.schedule(at, Event::TxDone { port });
            }
        }
    }

    /// The next flow of `host`, round robin, with data left and room in its
    /// window.
    fn pick_flow(&mut self, host: u32) -> Option<u32> {
        let h = &mut self.hosts[host as usize];
        let n = h.active.len();
        let mut i = h.rr;
        for _ in 0..n {
            let f = h.active[i];
            i = if i + 1 == n { 0 } else { i + 1 };
            let fl = &self.flows[f as usize];
            if fl.sent < fl.size && fl.inflight + self.mtu as u64 <= self.window {
                h.rr = i;
                return Some(f);
            }
        }
        None
    }

    /// The host's port is free or looks again: sends an ACK, else the next
    /// flow's packet; looks again when the port frees while it has work.
    fn host_kick(&mut self, host: u32, now: u64) {
        let port = self.hosts[host as usize].port;
        let pt = &mut self.ports[port as usize];
        if pt.tx_pending {
            return;
        }
        if pt.busy_until_ps > now {
            pt.tx_pending = true;
            let at = pt.busy_until_ps;
            self.schedule(at, Event::TxDone { port });
            return;
        }
        if let Some(p) = self.hosts[host as usize].ctrl.pop_front() {
            self.transmit(port, p, now);
        } else {
            let Some(f) = self.pick_flow(host) else {
                return;
            };
            let fl = &mut self.flows[f as usize];
            let payload = (fl.size - fl.sent).min(self.mtu as u64) as u32;
            fl.sent += payload as u64;
            fl.inflight += payload as u64;
            let dst = fl.dst;
            if self.with.cc {
                let s = &self.cc[f as usize];
                std::hint::black_box((s.words[0], s.words[8]));
            }
            let p = self.store.alloc(Pkt {
                flow: f,
                dst,
                wire: self.mtu_wire - self.mtu + payload,
                payload,
                ..Pkt::default()
            });
            self.transmit(port, p, now);
        }
        let h = &self.hosts[host as usize];
        if !h.ctrl.is_empty() || !h.active.is_empty() {
            let pt = &mut self.ports[port as usize];
            pt.tx_pending = true;
            let at = pt.busy_until_ps;
            self.schedule(at, Event::TxDone { port });
        }
    }

    fn host_arrive(&mut self, host: u32, mut p: S::P, now: u64) {
        let pkt: Pkt = *self.store.pkt(&p);
        if !pkt.ack {
            // The receiver: the packet becomes its ACK, back to the sender.
            let to = self.node_of_host[self.flows[pkt.flow as usize].host as usize];
            let back = self.store.pkt_mut(&mut p);
            back.ack = true;
            back.dst = to;
            back.wire = ACK_WIRE + INT_WIRE * pkt.hops as u32;
            self.hosts[host as usize].ctrl.push_back(p);
            self.host_kick(host, now);
            return;
        }
        if self.with.int {
            let sum = self.store.int(&p)[..pkt.hops as usize]
                .iter()
                .fold(0u64, |a, r| {
                    a.wrapping_add(r.tx_bytes ^ r.ts_ps ^ r.qlen_bytes ^ r.rate)
                });
            std::hint::black_box(sum);
        }
        if self.with.cc {
            let s = &mut self.cc[pkt.flow as usize];
            s.words[0] = s.words[0].wrapping_add(pkt.payload as u64);
            s.words[8] = s.words[8].wrapping_add(now);
        }
        self.store.free(p);
        let fl = &mut self.flows[pkt.flow as usize];
        fl.inflight -= pkt.payload as u64;
        fl.acked += pkt.payload as u64;
        if fl.acked >= fl.size {
            self.done += 1;
            let h = &mut self.hosts[host as usize];
            let at = h.active.iter().position(|&x| x == pkt.flow);
            h.active
                .swap_remove(at.expect("a flow is active until acknowledged"));
            if h.rr >= h.active.len() {
                h.rr = 0;
            }
        }
        self.host_kick(host, now);
    }

    /// Handles every event; returns how many.
    fn run(&mut self) -> u64 {
        let mut events = 0u64;
        while let Some((t, ev)) = self.q.pop() {
            events += 1;
            let now = t.0;
            match ev {
                Event::Arrive { link } => {
                    let ring = &mut self.rings[link as usize];
                    let (_, p) = ring.pop_front().expect("an arrival has a packet");
                    if let Some(&(next_ps, _)) = ring.front() {
                        self.schedule(next_ps, Event::Arrive { link });
                    }
                    let pt = &self.ports[link as usize];
                    let (node, in_port) = (pt.peer, pt.peer_port);
                    match self.role[node.idx()] {
                        Role::Host(h) => self.host_arrive(h, p, now),
                        Role::Switch(s) => self.switch_arrive(node, s, in_port, p, now),
                    }
                }
                Event::TxDone { port } => {
                    self.ports[port as usize].tx_pending = false;
                    match self.role[self.owner[port as usize].idx()] {
                        Role::Host(h) => self.host_kick(h, now),
                        Role::Switch(s) => self.switch_start_tx(s, port, now),
                    }
                }
                Event::Start { flow } => {
                    let h = self.flows[flow as usize].host;
                    self.hosts[h as usize].active.push(flow);
                    self.host_kick(h, now);
                }
            }
        }
        events
    }
}

/// A one-line error and exit code 2, as rocesim's own commands give.
fn fail(msg: &str) -> ! {
    eprintln!("lightcore: {msg}");
    std::process::exit(2)
}

/// What one run measured.
struct Outcome {
    seconds: f64,
    tx: u64,
    events: u64,
    peak_packets: usize,
    packet_bytes: usize,
}

fn main() {
    let args = Args::parse();
    if args.by_value && !args.with.contains(&Mechanism::Int) {
        Args::command()
            .error(
                ErrorKind::MissingRequiredArgument,
                "--by-value moves packets with their INT records: give --with int as well",
            )
            .exit();
    }
    if args.fifo_departures && args.with.contains(&Mechanism::Mmu) {
        Args::command()
            .error(
                ErrorKind::ArgumentConflict,
                "--fifo-departures has no departure event to release the MMU's charges at: leave out mmu",
            )
            .exit();
    }
    let with = With {
        int: args.with.contains(&Mechanism::Int),
        mmu: args.with.contains(&Mechanism::Mmu),
        cc: args.with.contains(&Mechanism::Cc),
    };
    let cfg = to_config(&Source::File(args.scenario.clone()), &args.sets)
        .unwrap_or_else(|e| fail(&e.to_string()));
    check(&cfg);
    let runs = (0..args.repeat).map(|_| {
        if args.by_value {
            measure::<ByValue>(&cfg, with, args.fifo_departures)
        } else if args.compact {
            measure::<Pooled<Pkt>>(&cfg, with, args.fifo_departures)
        } else {
            measure::<Pooled<Line>>(&cfg, with, args.fifo_departures)
        }
    });
    let best = runs
        .min_by(|a, b| a.seconds.total_cmp(&b.seconds))
        .expect("at least one run");
    let s = best.seconds;
    println!(
        "{}: {} flows, {}-byte packets (at most {} at once), best of {}: {s:.3} s, {} transmissions, {} events: {:.2} M transmissions/s, {:.2} M events/s, {:.1} ns an event, {:.2} events a transmission",
        cfg.name,
        cfg.flows.len(),
        best.packet_bytes,
        best.peak_packets,
        args.repeat,
        best.tx,
        best.events,
        best.tx as f64 / s / 1e6,
        best.events as f64 / s / 1e6,
        s * 1e9 / best.events as f64,
        best.events as f64 / best.tx as f64,
    );
}

/// Refuses what the kernel cannot run, with a one-line error.
fn check(cfg: &RunConfig) {
    let topo = &cfg.topo;
    let ports: usize = topo.ports.iter().map(Vec::len).sum();
    if ports > INDEX as usize || cfg.flows.len() > INDEX as usize {
        fail(&format!(
            "{} ports and {} flows: the kernel's events hold indices below 2^{INDEX_BITS}",
            ports,
            cfg.flows.len()
        ));
    }
    if cfg.flows.is_empty() || cfg.flows.iter().any(|f| f.size == 0) {
        fail("the scenario needs flows, each of at least one byte");
    }
    if let Some(h) = topo.hosts.iter().find(|h| topo.ports[h.idx()].is_empty()) {
        fail(&format!("host node {h} has no link"));
    }
}

/// Builds the kernel for `cfg`'s fabric and flows and runs it once.
fn measure<S: Store>(cfg: &RunConfig, with: With, fifo_departures: bool) -> Outcome {
    let topo = &cfg.topo;
    let n = topo.spec.kinds.len();
    let mut base = Vec::with_capacity(n);
    let mut ports = Vec::new();
    let mut owner = Vec::new();
    let mut role = Vec::with_capacity(n);
    for (node, kind) in topo.spec.kinds.iter().enumerate() {
        base.push(ports.len() as u32);
        let ix = topo.kind_index[node];
        role.push(match kind {
            NodeKind::Host => Role::Host(ix),
            _ => Role::Switch(ix),
        });
        for info in &topo.ports[node] {
            owner.push(NodeId::from_idx(node));
            ports.push(Port {
                busy_until_ps: 0,
                tx_pending: false,
                queue: VecDeque::new(),
                queued_bytes: 0,
                tx_bytes: 0,
                rate: info.rate,
                delay_ps: info.delay.0,
                peer: info.peer,
                peer_port: info.peer_port as u32,
            });
        }
    }
    let hosts: Vec<Host<S::P>> = topo
        .hosts
        .iter()
        .map(|h| Host {
            port: base[h.idx()],
            ctrl: VecDeque::new(),
            active: Vec::new(),
            rr: 0,
        })
        .collect();
    let flows: Vec<Flow> = cfg
        .flows
        .iter()
        .map(|f| Flow {
            host: topo.kind_index[f.src.idx()],
            dst: f.dst,
            size: f.size,
            sent: 0,
            acked: 0,
            inflight: 0,
        })
        .collect();
    // A window of one bandwidth-delay product: the host rate times the
    // longest round trip (six links each way on a three-tier tree).
    let host_bps = topo.ports[topo.hosts[0].idx()][0].rate.bps();
    let longest_ps = ports.iter().map(|p| p.delay_ps).max().unwrap_or(0);
    let bdp = host_bps as u128 / 8 * 12 * longest_ps as u128 / 1_000_000_000_000;
    let window = u64::try_from(bdp).unwrap_or(u64::MAX) + 2 * cfg.nic.mtu as u64;
    let n_ports = ports.len();
    let mut k = Kernel::<S> {
        q: EventQueue::new(),
        store: S::default(),
        rings: (0..n_ports).map(|_| VecDeque::new()).collect(),
        ports,
        base,
        role,
        owner,
        hosts,
        node_of_host: topo.hosts.clone(),
        cc: vec![CcState::default(); flows.len()],
        flows,
        charge_in: vec![[0; 2]; n_ports * CLASSES],
        charge_eg: vec![0; n_ports * CLASSES],
        shared_used: vec![0; topo.switches.len()],
        routes: topo.routes.clone(),
        window,
        mtu: cfg.nic.mtu,
        mtu_wire: cfg.mtu_wire(),
        with,
        fifo_departures,
        done: 0,
        tx: 0,
    };
    for (i, f) in cfg.flows.iter().enumerate() {
        k.q.schedule_cold(f.start, Event::Start { flow: i as u32 });
    }
    let t = Instant::now();
    let events = k.run();
    let seconds = t.elapsed().as_secs_f64();
    // Every flow's bytes acknowledged, every packet back: nothing was lost or
    // left in flight.
    let acked: u64 = k.flows.iter().map(|f| f.acked).sum();
    let size: u64 = k.flows.iter().map(|f| f.size).sum();
    assert_eq!(k.done, k.flows.len(), "every flow completes");
    assert_eq!(acked, size, "every byte is acknowledged");
    assert_eq!(k.store.in_use(), 0, "every packet comes back");
    Outcome {
        seconds,
        tx: k.tx,
        events,
        peak_packets: k.store.peak(),
        packet_bytes: k.store.packet_bytes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn incast() -> RunConfig {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios/quickstart.toml");
        to_config(&Source::File(path), &[]).expect("the quick-start scenario loads")
    }

    /// Every layout and structure delivers every byte and returns every
    /// packet (`measure` asserts it), with the same transmissions: each
    /// packet crosses the same links whatever the layout.
    #[test]
    fn every_layout_moves_the_same_packets_and_loses_none() {
        let cfg = incast();
        let int = With {
            int: true,
            ..With::default()
        };
        let all = With {
            int: true,
            mmu: true,
            cc: true,
        };
        let runs = [
            measure::<Pooled<Line>>(&cfg, With::default(), false),
            measure::<Pooled<Pkt>>(&cfg, all, false),
            measure::<ByValue>(&cfg, int, false),
            measure::<Pooled<Line>>(&cfg, int, true),
            measure::<ByValue>(&cfg, int, true),
        ];
        // Every data packet crosses the two links to the receiver through
        // the one switch, and its ACK the two links back.
        let mtu = cfg.nic.mtu as u64;
        let packets: u64 = cfg.flows.iter().map(|f| f.size.div_ceil(mtu)).sum();
        for r in &runs {
            assert_eq!(r.tx, packets * 2 * 2);
        }
        // Without transmission-end events at the switch, fewer events.
        assert!(runs[3].events < runs[0].events);
    }
}
