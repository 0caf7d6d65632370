//! A lower bound on what a packet-level event loop costs on a given fabric and
//! traffic: the same topology, routes and flows as a rocesim scenario, moved
//! by the least a store-and-forward packet simulator must do, with rocesim's
//! event queue and its event structure (one pending arrival per link, the
//! head of its ring of packets in flight; one transmission end per busy
//! port), and nothing else: FIFO ports with unbounded buffers, no classes, no
//! MMU, no PFC, no ECN, no INT, no congestion control (a flow keeps a fixed
//! window of bytes in flight, one ACK a packet), ECMP by a hash of flow and
//! switch. Its results are not a model of anything; its speed is the floor
//! under a datapath redesign (docs/performance.md, "The kernel's floor").
//!
//! Each `--with` adds the memory traffic of one of rocesim's mechanisms,
//! without its decisions, to measure what that traffic costs on its own:
//!
//! - `int`: each switch writes a 32-byte record into the packet's INT array
//!   as it transmits it (five a packet at most, beside the header); the ACK
//!   carries them back and the sender reads them all (HPCC §3.2).
//! - `mmu`: each switch charges a packet to its (ingress port, class) and
//!   (egress port, class) counters on arrival and releases them when it leaves,
//!   comparing the ingress charge with a dynamic threshold (DCQCN §4; HPCC §5.1).
//! - `cc`: a per-flow state of two cache lines that every ACK updates and
//!   every data packet reads, as a congestion control's does.
//!
//! `--compact` keeps a packet in 24 bytes instead of a 64-byte line;
//! `--by-value` moves a packet and its INT records (184 bytes) by value
//! through the rings and queues instead of passing a pool index;
//! `--fifo-departures` has each switch put a packet on its link as it arrives,
//! to leave when the port frees, as a FIFO port allows (no transmission-end
//! events at switches; rocesim's ports, with classes and PAUSE, cannot);
//! `--repeat N` reports the best of N runs. Run it with the heap on huge
//! pages, as rocesim runs itself:
//!
//! ```text
//! cargo build --release --example lightcore
//! GLIBC_TUNABLES=glibc.malloc.hugetlb=1 target/release/examples/lightcore scenarios/fattree-fbhdp-30pct-1ms-hpcc.toml
//! GLIBC_TUNABLES=glibc.malloc.hugetlb=1 target/release/examples/lightcore scenarios/incast-16to1-hpcc.toml --repeat 30 --with int,mmu,cc
//! ```

use rocesim::config::RunConfig;
use rocesim::engine::EventQueue;
use rocesim::scenario::{Source, to_config};
use rocesim::topology::NodeKind;
use rocesim::units::SimTime;
use std::collections::VecDeque;
use std::ops::{Deref, DerefMut};
use std::path::PathBuf;
use std::time::Instant;

const ARRIVE: u32 = 0;
const TX_DONE: u32 = 1 << 30;
const START: u32 = 2 << 30;
const INDEX: u32 = (1 << 30) - 1;
const ACK_WIRE: u32 = 64;
const INT_HOPS: usize = 5;

/// What the kernel keeps of a packet (24 bytes).
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Pkt {
    flow: u32,
    dst: u32,
    wire: u32,
    payload: u32,
    /// The (switch port) it entered the current switch by, for `mmu`.
    in_port: u32,
    hops: u8,
    ack: bool,
    /// Charged to headroom rather than the shared pool (`mmu`).
    hdrm: bool,
}

/// A packet header in a cache line of its own, as rocesim's is.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Line(Pkt);

/// How the pool holds a packet: in a line of its own (as rocesim does) or
/// packed (`--compact`).
trait Header: Copy + Default + From<Pkt> + Deref<Target = Pkt> + DerefMut {}

impl From<Pkt> for Line {
    fn from(p: Pkt) -> Line {
        Line(p)
    }
}
impl Deref for Line {
    type Target = Pkt;
    fn deref(&self) -> &Pkt {
        &self.0
    }
}
impl DerefMut for Line {
    fn deref_mut(&mut self) -> &mut Pkt {
        &mut self.0
    }
}
impl Header for Line {}

impl Deref for Pkt {
    type Target = Pkt;
    fn deref(&self) -> &Pkt {
        self
    }
}
impl DerefMut for Pkt {
    fn deref_mut(&mut self) -> &mut Pkt {
        self
    }
}
impl Header for Pkt {}

/// How packets are kept while they travel: in a pool, the links' rings and
/// the ports' queues holding their indices (as rocesim does), or moved by
/// value through the rings and queues with their INT records (`--by-value`).
trait Store: Default {
    /// What the rings and queues hold.
    type P;
    fn alloc(&mut self, pkt: Pkt) -> Self::P;
    fn free(&mut self, p: Self::P);
    fn pkt<'a>(&'a self, p: &'a Self::P) -> &'a Pkt;
    fn pkt_mut<'a>(&'a mut self, p: &'a mut Self::P) -> &'a mut Pkt;
    fn int<'a>(&'a self, p: &'a Self::P) -> &'a [Hop; INT_HOPS];
    fn int_mut<'a>(&'a mut self, p: &'a mut Self::P) -> &'a mut [Hop; INT_HOPS];
    /// Packets allocated and not freed.
    fn in_use(&self) -> usize;
    /// The header's size in bytes.
    fn header(&self) -> usize;
}

/// A pool of headers `H` with the INT records in a parallel array, reused
/// last freed first.
#[derive(Default)]
struct Pooled<H> {
    pool: Vec<H>,
    int: Vec<[Hop; INT_HOPS]>,
    free: Vec<u32>,
}

impl<H: Header> Store for Pooled<H> {
    type P = u32;
    fn alloc(&mut self, pkt: Pkt) -> u32 {
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.pool.push(H::default());
                self.int.push([Hop::default(); INT_HOPS]);
                self.pool.len() as u32 - 1
            }
        };
        self.pool[id as usize] = H::from(pkt);
        id
    }
    fn free(&mut self, p: u32) {
        self.free.push(p);
    }
    fn pkt<'a>(&'a self, p: &'a u32) -> &'a Pkt {
        &self.pool[*p as usize]
    }
    fn pkt_mut<'a>(&'a mut self, p: &'a mut u32) -> &'a mut Pkt {
        &mut self.pool[*p as usize]
    }
    fn int<'a>(&'a self, p: &'a u32) -> &'a [Hop; INT_HOPS] {
        &self.int[*p as usize]
    }
    fn int_mut<'a>(&'a mut self, p: &'a mut u32) -> &'a mut [Hop; INT_HOPS] {
        &mut self.int[*p as usize]
    }
    fn in_use(&self) -> usize {
        self.pool.len() - self.free.len()
    }
    fn header(&self) -> usize {
        size_of::<H>()
    }
}

/// A packet moved by value: its 24 bytes and its INT records.
struct Moving {
    pkt: Pkt,
    int: [Hop; INT_HOPS],
}

/// Packets by value; the store only counts them.
#[derive(Default)]
struct ByValue {
    live: usize,
}

impl Store for ByValue {
    type P = Moving;
    fn alloc(&mut self, pkt: Pkt) -> Moving {
        self.live += 1;
        Moving {
            pkt,
            int: [Hop::default(); INT_HOPS],
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
    fn int<'a>(&'a self, p: &'a Moving) -> &'a [Hop; INT_HOPS] {
        &p.int
    }
    fn int_mut<'a>(&'a mut self, p: &'a mut Moving) -> &'a mut [Hop; INT_HOPS] {
        &mut p.int
    }
    fn in_use(&self) -> usize {
        self.live
    }
    fn header(&self) -> usize {
        size_of::<Moving>()
    }
}

/// An INT record (rocesim's is 32 bytes).
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Hop {
    ts: u64,
    bytes: u64,
    qlen: u64,
    rate: u64,
}

#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct CcState {
    lines: [u64; 16],
}

struct Port<P> {
    busy_until: u64,
    tx_pending: bool,
    queue: VecDeque<P>,
    queued_bytes: u64,
    tx_bytes: u64,
    /// Picoseconds per byte times 1024 (fixed point).
    ps_per_byte_1024: u64,
    delay: u64,
    /// The node at the link's other end and the port it arrives on.
    peer: u32,
    peer_port: u32,
}

struct Flow {
    host: u32,
    dst: u32,
    size: u64,
    sent: u64,
    acked: u64,
    inflight: u64,
}

struct Host<P> {
    port: u32,
    ctrl: VecDeque<P>,
    active: Vec<u32>,
    rr: usize,
}

#[derive(Default, Clone, Copy)]
struct With {
    int: bool,
    mmu: bool,
    cc: bool,
}

struct Kernel<S: Store> {
    q: EventQueue<u32>,
    store: S,
    ports: Vec<Port<S::P>>,
    rings: Vec<VecDeque<(u64, S::P)>>,
    /// First port id of each node.
    base: Vec<u32>,
    /// Host or switch index of each node, and whether it is a host.
    index: Vec<(u32, bool)>,
    hosts: Vec<Host<S::P>>,
    flows: Vec<Flow>,
    cc: Vec<CcState>,
    /// Per (port, class): the ingress charges, shared and headroom side by
    /// side, and the egress bytes (`mmu`).
    charge_in: Vec<[u64; 2]>,
    charge_eg: Vec<u64>,
    shared_used: u64,
    routes: rocesim::topology::routing::Routes,
    window: u64,
    mtu: u32,
    mtu_wire: u32,
    with: With,
    /// Switch ports put a packet on the link as it arrives (`--fifo-departures`).
    fifo_departures: bool,
    /// Who owns each port: host or switch index, and whether a host.
    owner: Vec<(u32, bool)>,
    node_of_host: Vec<u32>,
    done: usize,
    tx: u64,
}

impl<S: Store> Kernel<S> {
    /// Puts packet `id` on port `g`'s link; the port must be free.
    fn transmit(&mut self, g: u32, id: S::P, now: u64) {
        self.tx += 1;
        let wire = self.store.pkt(&id).wire as u64;
        let p = &mut self.ports[g as usize];
        let end = now + (wire * p.ps_per_byte_1024).div_ceil(1024);
        p.busy_until = end;
        p.tx_bytes += wire;
        let at = end + p.delay;
        let ring = &mut self.rings[g as usize];
        ring.push_back((at, id));
        if ring.len() == 1 {
            self.q.schedule(SimTime(at), ARRIVE | g);
        }
    }

    /// A switch's INT record, written as the packet leaves.
    fn stamp(&mut self, id: &mut S::P, ts: u64, bytes: u64, qlen: u64) {
        let h = self.store.pkt(id).hops as usize;
        if h < INT_HOPS {
            self.store.int_mut(id)[h] = Hop {
                ts,
                bytes,
                qlen,
                rate: 1,
            };
            let pkt = self.store.pkt_mut(id);
            pkt.hops += 1;
            pkt.wire += 8;
        }
    }

    fn switch_start_tx(&mut self, g: u32, now: u64) {
        let p = &mut self.ports[g as usize];
        let Some(mut id) = p.queue.pop_front() else {
            return;
        };
        let wire = self.store.pkt(&id).wire as u64;
        p.queued_bytes -= wire;
        if self.with.int {
            let (bytes, qlen) = (p.tx_bytes, p.queued_bytes);
            self.stamp(&mut id, now, bytes, qlen);
        }
        if self.with.mmu {
            let pkt = self.store.pkt(&id);
            let c = &mut self.charge_in[pkt.in_port as usize * 8 + 3];
            if pkt.hdrm {
                c[1] -= wire;
            } else {
                c[0] -= wire;
                self.shared_used -= wire;
            }
            self.charge_eg[g as usize * 8 + 3] -= wire;
        }
        self.transmit(g, id, now);
        let p = &mut self.ports[g as usize];
        if !p.queue.is_empty() {
            p.tx_pending = true;
            let at = p.busy_until;
            self.q.schedule(SimTime(at), TX_DONE | g);
        }
    }

    fn switch_arrive(&mut self, node: u32, sw: u32, in_port: u32, mut id: S::P, now: u64) {
        let pkt = self.store.pkt_mut(&mut id);
        let hops = self
            .routes
            .next_hops(sw, rocesim::topology::NodeId(pkt.dst));
        let h = (pkt.flow as u64 ^ (sw as u64) << 32).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let p = hops[(((h >> 32) * hops.len() as u64) >> 32) as usize];
        let g = self.base[node as usize] + p as u32;
        let wire = pkt.wire as u64;
        if self.with.mmu {
            let ip = self.base[node as usize] + in_port;
            pkt.in_port = ip;
            // Beyond the dynamic threshold (alpha = 1/8 of the free shared
            // pool) a packet is charged to headroom.
            let free = 16_000_000u64.saturating_sub(self.shared_used);
            let c = &mut self.charge_in[ip as usize * 8 + 3];
            pkt.hdrm = (c[0] + wire) as f64 > free as f64 * 0.125;
            if pkt.hdrm {
                c[1] += wire;
            } else {
                c[0] += wire;
                self.shared_used += wire;
            }
            self.charge_eg[g as usize * 8 + 3] += wire;
        }
        if self.fifo_departures {
            // A FIFO port's departures are known at enqueue: the packet goes
            // on the link now, to leave when the port frees.
            let p = &self.ports[g as usize];
            let start = now.max(p.busy_until);
            if self.with.int {
                let qlen = (start - now) * 1024 / p.ps_per_byte_1024;
                let bytes = p.tx_bytes;
                self.stamp(&mut id, start, bytes, qlen);
            }
            self.transmit(g, id, start);
            return;
        }
        let port = &mut self.ports[g as usize];
        port.queue.push_back(id);
        port.queued_bytes += wire;
        if !port.tx_pending {
            if port.busy_until <= now {
                self.switch_start_tx(g, now);
            } else {
                port.tx_pending = true;
                let at = port.busy_until;
                self.q.schedule(SimTime(at), TX_DONE | g);
            }
        }
    }

    /// The host's port is free or looks again: sends a control packet, else
    /// the next flow round robin with room in its window.
    fn host_kick(&mut self, h: u32, now: u64) {
        let g = self.hosts[h as usize].port;
        let p = &mut self.ports[g as usize];
        if p.tx_pending {
            return;
        }
        if p.busy_until > now {
            p.tx_pending = true;
            let at = p.busy_until;
            self.q.schedule(SimTime(at), TX_DONE | g);
            return;
        }
        if let Some(id) = self.hosts[h as usize].ctrl.pop_front() {
            self.transmit(g, id, now);
        } else {
            let host = &mut self.hosts[h as usize];
            let n = host.active.len();
            let mut i = host.rr;
            let mut pick = None;
            for _ in 0..n {
                let f = host.active[i];
                i = if i + 1 == n { 0 } else { i + 1 };
                let fl = &self.flows[f as usize];
                if fl.sent < fl.size && fl.inflight + self.mtu as u64 <= self.window {
                    pick = Some(f);
                    break;
                }
            }
            host.rr = i;
            let Some(f) = pick else {
                return;
            };
            let fl = &mut self.flows[f as usize];
            let payload = (fl.size - fl.sent).min(self.mtu as u64) as u32;
            fl.sent += payload as u64;
            fl.inflight += payload as u64;
            let dst = fl.dst;
            if self.with.cc {
                std::hint::black_box(self.cc[f as usize].lines[0]);
            }
            let id = self.store.alloc(Pkt {
                flow: f,
                dst,
                wire: self.mtu_wire - self.mtu + payload,
                payload,
                in_port: 0,
                hops: 0,
                ack: false,
                hdrm: false,
            });
            self.transmit(g, id, now);
        }
        let host = &self.hosts[h as usize];
        if !host.ctrl.is_empty() || !host.active.is_empty() {
            let p = &mut self.ports[g as usize];
            p.tx_pending = true;
            let at = p.busy_until;
            self.q.schedule(SimTime(at), TX_DONE | g);
        }
    }

    fn host_arrive(&mut self, h: u32, mut id: S::P, now: u64) {
        let pkt: Pkt = *self.store.pkt(&id);
        if !pkt.ack {
            // The receiver: the packet becomes its ACK, back to the sender.
            let src = self.flows[pkt.flow as usize].host;
            let to = self.hosts_node(src);
            let back = self.store.pkt_mut(&mut id);
            back.ack = true;
            back.dst = to;
            back.wire = ACK_WIRE + 8 * pkt.hops as u32;
            self.hosts[h as usize].ctrl.push_back(id);
            self.host_kick(h, now);
            return;
        }
        if self.with.int {
            let mut sum = 0u64;
            for r in &self.store.int(&id)[..pkt.hops as usize] {
                sum = sum.wrapping_add(r.bytes ^ r.ts ^ r.qlen ^ r.rate);
            }
            std::hint::black_box(sum);
        }
        if self.with.cc {
            let s = &mut self.cc[pkt.flow as usize];
            s.lines[0] = s.lines[0].wrapping_add(pkt.payload as u64);
            s.lines[8] = s.lines[8].wrapping_add(now);
        }
        self.store.free(id);
        let fl = &mut self.flows[pkt.flow as usize];
        fl.inflight -= pkt.payload as u64;
        fl.acked += pkt.payload as u64;
        if fl.acked >= fl.size {
            self.done += 1;
            let f = pkt.flow;
            let host = &mut self.hosts[h as usize];
            let at = host.active.iter().position(|&x| x == f).expect("active");
            host.active.swap_remove(at);
            if host.rr >= host.active.len() {
                host.rr = 0;
            }
        }
        self.host_kick(h, now);
    }

    fn hosts_node(&self, h: u32) -> u32 {
        self.node_of_host[h as usize]
    }

    fn run(&mut self) -> u64 {
        let mut events = 0u64;
        while let Some((t, ev)) = self.q.pop() {
            events += 1;
            let now = t.0;
            let ix = ev & INDEX;
            match ev & !INDEX {
                ARRIVE => {
                    let ring = &mut self.rings[ix as usize];
                    let (_, id) = ring.pop_front().expect("a pending arrival");
                    if let Some(&(next, _)) = ring.front() {
                        self.q.schedule(SimTime(next), ARRIVE | ix);
                    }
                    let p = &self.ports[ix as usize];
                    let (node, in_port) = (p.peer, p.peer_port);
                    match self.index[node as usize] {
                        (h, true) => self.host_arrive(h, id, now),
                        (s, false) => self.switch_arrive(node, s, in_port, id, now),
                    }
                }
                TX_DONE => {
                    self.ports[ix as usize].tx_pending = false;
                    match self.owner[ix as usize] {
                        (h, true) => self.host_kick(h, now),
                        _ => self.switch_start_tx(ix, now),
                    }
                }
                _ => {
                    let f = &self.flows[ix as usize];
                    let h = f.host;
                    self.hosts[h as usize].active.push(ix);
                    self.host_kick(h, now);
                }
            }
        }
        events
    }
}

const USAGE: &str = "usage: lightcore SCENARIO [--set key=value]... [--with int,mmu,cc] [--compact | --by-value] [--fifo-departures] [--repeat N]";

/// A one-line error and exit code 2, as rocesim's own commands give.
fn fail(msg: &str) -> ! {
    eprintln!("lightcore: {msg}");
    std::process::exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut path = None;
    let mut sets = Vec::new();
    let mut with = With::default();
    let mut compact = false;
    let mut by_value = false;
    let mut fifo_departures = false;
    let mut repeat = 1;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--set" => sets.push(args.next().unwrap_or_else(|| fail(USAGE))),
            "--with" => {
                for w in args.next().unwrap_or_else(|| fail(USAGE)).split(',') {
                    match w {
                        "int" => with.int = true,
                        "mmu" => with.mmu = true,
                        "cc" => with.cc = true,
                        other => fail(&format!(
                            "--with: {other:?} is not a mechanism (valid: int, mmu, cc)"
                        )),
                    }
                }
            }
            "--compact" => compact = true,
            "--by-value" => by_value = true,
            "--fifo-departures" => fifo_departures = true,
            "--repeat" => {
                repeat = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .unwrap_or_else(|| fail("--repeat needs a whole number of runs, at least 1"))
            }
            _ if a.starts_with('-') => fail(&format!("{a:?} is not an option; {USAGE}")),
            _ => path = Some(PathBuf::from(a)),
        }
    }
    let path = path.unwrap_or_else(|| fail(USAGE));
    if compact && by_value {
        fail("--compact and --by-value are two layouts; give one of them");
    }
    if fifo_departures && with.mmu {
        fail(
            "--fifo-departures has no departure event to release the MMU's charges at; leave out mmu",
        );
    }
    let cfg = to_config(&Source::File(path), &sets).unwrap_or_else(|e| fail(&e.to_string()));
    // The best of `repeat` runs, as `rocesim bench` reports.
    let best = (0..repeat)
        .map(|_| {
            if by_value {
                measure::<ByValue>(&cfg, with, fifo_departures)
            } else if compact {
                measure::<Pooled<Pkt>>(&cfg, with, fifo_departures)
            } else {
                measure::<Pooled<Line>>(&cfg, with, fifo_departures)
            }
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .expect("at least one run");
    let (s, tx, events, header) = best;
    println!(
        "{}: {} flows, {header}-byte packets, best of {repeat}: {s:.3} s, {tx} transmissions, {events} events: {:.2} M transmissions/s, {:.2} M events/s, {:.1} ns an event, {:.2} events a transmission",
        cfg.name,
        cfg.flows.len(),
        tx as f64 / s / 1e6,
        events as f64 / s / 1e6,
        s * 1e9 / events as f64,
        events as f64 / tx as f64,
    );
}

/// Builds the kernel for `cfg`'s fabric and flows and runs it: the seconds
/// it took, its transmissions and events, and the header's size.
fn measure<S: Store>(cfg: &RunConfig, with: With, fifo_departures: bool) -> (f64, u64, u64, usize) {
    let topo = &cfg.topo;
    let n = topo.spec.kinds.len();
    let mut base = Vec::with_capacity(n);
    let mut ports = Vec::new();
    let mut owner = Vec::new();
    let mut index = Vec::with_capacity(n);
    for (node, kind) in topo.spec.kinds.iter().enumerate() {
        base.push(ports.len() as u32);
        let is_host = matches!(kind, NodeKind::Host);
        index.push((topo.kind_index[node], is_host));
        for info in &topo.ports[node] {
            owner.push((topo.kind_index[node], is_host));
            ports.push(Port {
                busy_until: 0,
                tx_pending: false,
                queue: VecDeque::new(),
                queued_bytes: 0,
                tx_bytes: 0,
                ps_per_byte_1024: 8 * 1024 * 1_000_000_000_000 / info.rate.bps(),
                delay: info.delay.0,
                peer: info.peer.0,
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
    let node_of_host: Vec<u32> = topo.hosts.iter().map(|h| h.0).collect();
    let flows: Vec<Flow> = cfg
        .flows
        .iter()
        .map(|f| Flow {
            host: topo.kind_index[f.src.idx()],
            dst: f.dst.0,
            size: f.size,
            sent: 0,
            acked: 0,
            inflight: 0,
        })
        .collect();
    if flows.iter().any(|f| f.size == 0) || hosts.is_empty() {
        fail("the scenario needs hosts and flows of at least one byte");
    }
    // A window of one bandwidth-delay product: the host rate times the
    // longest round trip (six links each way on a three-tier tree).
    let host_rate = topo.ports[topo.hosts[0].idx()][0].rate.bps();
    let longest = ports.iter().map(|p| p.delay).max().unwrap_or(0);
    let window = (host_rate / 8) * (12 * longest) / 1_000_000_000_000 + 2 * cfg.nic.mtu as u64;
    let n_ports = ports.len();
    let mut k = Kernel::<S> {
        q: EventQueue::new(),
        store: S::default(),
        rings: (0..n_ports).map(|_| VecDeque::new()).collect(),
        ports,
        base,
        index,
        owner,
        hosts,
        node_of_host,
        cc: vec![CcState::default(); flows.len()],
        flows,
        charge_in: vec![[0; 2]; n_ports * 8],
        charge_eg: vec![0; n_ports * 8],
        shared_used: 0,
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
        k.q.schedule_cold(f.start, START | i as u32);
    }
    let t = Instant::now();
    let events = k.run();
    let s = t.elapsed().as_secs_f64();
    // Every flow's bytes acknowledged, every packet back in the pool: nothing
    // was lost or left in flight.
    let acked: u64 = k.flows.iter().map(|f| f.acked).sum();
    let size: u64 = k.flows.iter().map(|f| f.size).sum();
    if k.done != k.flows.len() || acked != size || k.store.in_use() != 0 {
        eprintln!(
            "lightcore: {} of {} flows done, {acked} of {size} bytes acknowledged, {} packets not back",
            k.done,
            k.flows.len(),
            k.store.in_use()
        );
        std::process::exit(1);
    }
    (s, k.tx, events, k.store.header())
}
