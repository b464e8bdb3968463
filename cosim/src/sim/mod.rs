//! `metaroce sim`: closed-loop congestion scenarios (`SPEC.md` §9). N hosts,
//! each with the pipeline top in its NIC (golden model or Verilated RTL),
//! on one switch: links with a rate and a propagation delay, a shared
//! buffer with RED-style ECN marking and tail drop. Receivers' NICs turn
//! CE marks into CNPs; senders' NICs cut their QPs' rates and pace.
//!
//! Discrete events in ps. A NIC sees ns ticks (`ps / 1000`); it is stepped
//! whenever a frame reaches it, its host posts a packet, or its pacer's next
//! busy slot starts (the pacer tells when), so no release is found late.
//! A host keeps one packet per QP between hand-over and the wire: the next
//! is posted when the previous one starts on the host's link. A packet the
//! switch drops is sent again (selective repeat) once the receiver's NAK
//! would reach the sender.

pub mod nic;
pub mod packet;
pub mod plot;
pub mod report;
pub mod switch;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use metaroce_golden::cc_params::{CcMode, CcParams};
use metaroce_golden::cn_event::{NicConfig, QpContext};
use metaroce_golden::pacer::Release;
use metaroce_golden::record::MacAddr;

use crate::addresses::host_mac;
use crate::capture::{GenFrame, START_NS};
use crate::dice::Dice;
use nic::{Nic, NicOutputs};
use packet::Packet;
use switch::{Enqueued, RedProfile, Switch};

/// QPs start here (0 and 1 are InfiniBand's special QPs).
pub const QP_BASE: u32 = 16;

/// Host `h`'s QP towards peer `p` among `hosts`: `16 + (p - h) mod hosts`.
/// A host's QPs differ, and so do the remote QPs in its table, which is
/// how a sent frame's QP is found from its destination QP (`SPEC.md` §6.1).
pub fn qp_toward(h: usize, p: usize, hosts: usize) -> u32 {
    QP_BASE + ((p + hosts - h) % hosts) as u32
}

/// The peer host `h`'s QP `qp` talks to.
pub fn peer_of(h: usize, qp: u32, hosts: usize) -> Option<usize> {
    let offset = qp.checked_sub(QP_BASE)? as usize;
    (offset > 0 && offset < hosts).then(|| (h + offset) % hosts)
}
/// The experimental EtherType (IEEE 802 local experimental 1) of the marker
/// frame that opens every host capture at tick 0.
const MARKER_ETHERTYPE: u16 = 0x88B5;
const PS_PER_NS: u64 = 1000;
/// A drop is known to its sender after three link delays: the next packet
/// reaches the receiver, whose NAK goes back through the switch (queueing
/// and serialization left out).
const NAK_DELAYS: u64 = 3;

#[cfg(test)]
mod tests {
    use super::*;
    use metaroce_golden::cn::TimeBase;
    use metaroce_golden::pipeline::{sent_qp, Pipeline, PipelineOutputs};
    use metaroce_golden::ParserConfig;

    /// A small, congested incast: CNPs every 4 µs, jittered starts.
    fn congested() -> SimConfig {
        let mut config = SimConfig::new(Scenario::Incast { senders: 4 }, 100);
        config.message_bytes = 512 << 10;
        config.mtu = 1024;
        config.jitter_ns = 3000;
        config.cc.np_min_time_between_cnps = 4;
        config
    }

    #[test]
    fn every_packet_arrives_or_is_dropped_and_the_buffer_drains() {
        for mode in [CcMode::Dcqcn, CcMode::Metaroce] {
            let run = run(&congested(), mode).unwrap();
            let count = congested().packets_per_message();
            assert!(run.flows.iter().all(|f| f.delivered_packets == count && f.done_ps.is_some()));
            assert!(run.marks > 0 && run.cnps_sent > 0 && run.cnps_sent == run.cnps_received);
            let last = run.samples.last().unwrap();
            assert_eq!((last.buffer_used, run.drops), (0, 0));
            assert!(run.samples.windows(2).all(|w| w[0].time_ns < w[1].time_ns));
            // The line-rate bound holds.
            let summary = report::summarize(&run);
            assert!(summary.completion_us.unwrap() >= summary.ideal_completion_us);
        }
    }

    #[test]
    fn dropped_packets_are_sent_again_until_every_one_arrives() {
        let mut config = congested();
        config.buffer_bytes = 64 << 10;
        let run = run(&config, CcMode::Dcqcn).unwrap();
        let count = config.packets_per_message();
        assert!(run.drops > 0);
        assert_eq!(run.flows.iter().map(|f| f.lost_packets).sum::<u64>(), run.drops);
        assert!(run.flows.iter().all(|f| f.delivered_packets == count && f.resend.is_empty()));
        // Every drop cost one more release at its sender.
        let releases: usize = run.releases.iter().map(Vec::len).sum();
        assert_eq!(releases as u64, count * run.flows.len() as u64 + run.drops);
    }

    /// Replaying a host's capture (frames at their ticks, then flush, no
    /// time advances between) gives the releases of the closed loop: when
    /// the loop stepped the NIC changes nothing but when it saw them.
    #[test]
    fn a_host_capture_replays_to_the_same_releases() {
        let config = congested();
        let run = run(&config, CcMode::Metaroce).unwrap();
        for (host, (nic, frames)) in run.captures.iter().enumerate() {
            let regs = nic.cc.registers().unwrap();
            let mut pipeline = Pipeline::new(nic, &regs, ParserConfig::default()).unwrap();
            let mut out = PipelineOutputs::default();
            let mut time_base = TimeBase::default();
            for frame in frames {
                let tick = time_base.tick(frame.time_ns.unwrap());
                let event = pipeline.frame(&frame.data, false, tick, &mut out);
                assert!(host != 0 || sent_qp(event.as_ref()).is_none());
            }
            pipeline.flush(&mut out);
            assert_eq!(out.releases, run.releases[host], "host {host}");
        }
        assert!(run.releases[1].len() as u64 == config.packets_per_message());
    }

    #[test]
    fn qp_numbers_are_unique_both_ways_and_invert() {
        for hosts in [2, 3, 17, 65] {
            for h in 0..hosts {
                let peers: Vec<usize> = (0..hosts).filter(|&p| p != h).collect();
                let mut locals: Vec<u32> = peers.iter().map(|&p| qp_toward(h, p, hosts)).collect();
                let mut remotes: Vec<u32> = peers.iter().map(|&p| qp_toward(p, h, hosts)).collect();
                for &p in &peers {
                    assert_eq!(peer_of(h, qp_toward(h, p, hosts), hosts), Some(p));
                }
                locals.sort_unstable();
                locals.dedup();
                remotes.sort_unstable();
                remotes.dedup();
                assert_eq!((locals.len(), remotes.len()), (peers.len(), peers.len()));
                assert!(locals.iter().all(|&q| q < 4096));
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// `senders` hosts each send one message to host 0.
    Incast { senders: usize },
    /// Every one of `hosts` hosts sends one message to every other.
    AllToAll { hosts: usize },
}

impl Scenario {
    pub fn hosts(&self) -> usize {
        match *self {
            Scenario::Incast { senders } => senders + 1,
            Scenario::AllToAll { hosts } => hosts,
        }
    }

    /// (source, destination) of every flow.
    pub fn flows(&self) -> Vec<(usize, usize)> {
        match *self {
            Scenario::Incast { senders } => (1..=senders).map(|s| (s, 0)).collect(),
            Scenario::AllToAll { hosts } => {
                (0..hosts).flat_map(|s| (0..hosts).filter(move |&d| d != s).map(move |d| (s, d))).collect()
            }
        }
    }

    pub fn name(&self) -> String {
        match *self {
            Scenario::Incast { senders } => format!("incast {senders}:1"),
            Scenario::AllToAll { hosts } => format!("all-to-all, {hosts} hosts"),
        }
    }
}

/// Where the Verilated top runs instead of the golden model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RtlPlacement {
    #[default]
    Nowhere,
    Host(usize),
    Everywhere,
}

impl RtlPlacement {
    fn covers(&self, host: usize) -> bool {
        match *self {
            RtlPlacement::Nowhere => false,
            RtlPlacement::Host(h) => h == host,
            RtlPlacement::Everywhere => true,
        }
    }
}

/// One run's configuration.
#[derive(Debug, Clone)]
pub struct SimConfig {
    pub scenario: Scenario,
    pub link_gbps: u32,
    /// Propagation delay of each link (host to switch), ns.
    pub link_delay_ns: u64,
    /// Bytes of each flow's message.
    pub message_bytes: u64,
    /// Payload bytes per packet.
    pub mtu: u32,
    /// Each flow starts at a uniform random time in [0, jitter].
    pub jitter_ns: u64,
    pub buffer_bytes: u64,
    pub red: RedProfile,
    /// Every NIC's congestion control (its line rate is the link's).
    pub cc: CcParams,
    pub rtl: RtlPlacement,
    pub seed: u64,
    pub sample_ns: u64,
    /// The run stops here even if flows are left.
    pub max_time_ns: u64,
    /// Keep every NIC's input stream for the captures.
    pub record_captures: bool,
}

impl SimConfig {
    /// Defaults for `scenario` at `link_gbps` (`SPEC.md` §9).
    pub fn new(scenario: Scenario, link_gbps: u32) -> Self {
        SimConfig {
            scenario,
            link_gbps,
            link_delay_ns: 1000,
            message_bytes: 4 << 20,
            mtu: 4096,
            jitter_ns: 0,
            buffer_bytes: 32 << 20,
            red: RedProfile::for_link(link_gbps),
            cc: CcParams::default(),
            rtl: RtlPlacement::Nowhere,
            seed: 1,
            sample_ns: 1000,
            max_time_ns: 100_000_000,
            record_captures: true,
        }
    }

    /// Refuses what the network or the NICs cannot run.
    pub fn validate(&self) -> Result<(), String> {
        let hosts = self.scenario.hosts();
        match self.scenario {
            Scenario::Incast { senders } if !(2..=64).contains(&senders) => {
                return Err(format!("incast: {senders} senders; 2 to 64"));
            }
            Scenario::AllToAll { hosts } if !(2..=64).contains(&hosts) => {
                return Err(format!("all-to-all: {hosts} hosts; 2 to 64"));
            }
            _ => {}
        }
        if let RtlPlacement::Host(h) = self.rtl {
            if h >= hosts {
                return Err(format!("--rtl {h}: there are hosts 0 to {}", hosts - 1));
            }
        }
        if !(1..=1600).contains(&self.link_gbps) {
            return Err(format!("link rate {} Gb/s: 1 to 1600", self.link_gbps));
        }
        if !(256..=9000).contains(&self.mtu) {
            return Err(format!("MTU {} B: 256 to 9000", self.mtu));
        }
        if self.message_bytes == 0 {
            return Err("the message size must be at least 1 byte".into());
        }
        if self.sample_ns == 0 {
            return Err("the sample interval must be at least 1 ns".into());
        }
        if self.buffer_bytes < u64::from(self.mtu) + 128 {
            return Err(format!("a {} B buffer holds no packet", self.buffer_bytes));
        }
        if self.red.kmin > self.red.kmax || !(0.0..=1.0).contains(&self.red.pmax) {
            return Err("ECN marking needs kmin <= kmax and pmax in [0, 1]".into());
        }
        Ok(())
    }

    fn packets_per_message(&self) -> u64 {
        self.message_bytes.div_ceil(u64::from(self.mtu))
    }

    fn payload_of(&self, index: u64) -> u32 {
        let left = self.message_bytes - index * u64::from(self.mtu);
        left.min(u64::from(self.mtu)) as u32
    }

    /// Host `h`'s NIC file: its MAC, a QP per peer it talks to, the cc.
    pub fn nic_config(&self, host: usize) -> NicConfig {
        let hosts = self.scenario.hosts();
        let mut peers: Vec<usize> = self
            .scenario
            .flows()
            .into_iter()
            .filter_map(|(s, d)| (s == host).then_some(d).or((d == host).then_some(s)))
            .collect();
        peers.sort_unstable();
        peers.dedup();
        let mut cc = self.cc;
        cc.line_rate_mbps = self.link_gbps * 1000;
        NicConfig {
            local_mac: Some(MacAddr(host_mac(packet::address_of(host))).to_string()),
            qps: peers
                .into_iter()
                .map(|p| QpContext { local: qp_toward(host, p, hosts), remote: qp_toward(p, host, hosts) })
                .collect(),
            cc,
        }
    }
}

/// One flow's progress.
#[derive(Debug, Clone, Default)]
pub struct Flow {
    pub src: usize,
    pub dst: usize,
    pub start_ps: u64,
    /// The next new packet to hand over.
    pub next_index: u64,
    /// Dropped packets the sender was told of, to send again first.
    pub resend: VecDeque<u64>,
    /// A packet of the flow is between hand-over and the host's wire.
    pub in_nic: bool,
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    /// Packets the switch dropped (each was sent again).
    pub lost_packets: u64,
    pub done_ps: Option<u64>,
    /// The sender NIC's current rate for the flow's QP, kb/s.
    pub rate_kbps: u32,
}

/// One row of the time series.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub time_ns: u64,
    pub rate_kbps: Vec<u32>,
    pub delivered_bytes: Vec<u64>,
    pub port_depth: Vec<u64>,
    pub buffer_used: u64,
    pub marks: u64,
    pub drops: u64,
    pub cnps: u64,
}

/// Everything a run produced.
#[derive(Debug)]
pub struct SimRun {
    pub config: SimConfig,
    pub mode: CcMode,
    pub flows: Vec<Flow>,
    pub samples: Vec<Sample>,
    pub peak_buffer: u64,
    pub peak_port: Vec<u64>,
    pub marks: u64,
    pub drops: u64,
    pub cnps_sent: u64,
    pub cnps_received: u64,
    /// The collective finished (every packet delivered), ps.
    pub completion_ps: Option<u64>,
    /// Per host: the NIC's input stream (the replayable capture) and file.
    pub captures: Vec<(NicConfig, Vec<GenFrame>)>,
    /// Per host: every release of its pacer, in order.
    pub releases: Vec<Vec<Release>>,
    pub events: u64,
}

#[derive(Debug)]
enum Event {
    Post {
        flow: usize,
    },
    /// The receiver's NAK for a dropped packet reaches the sender.
    Nak {
        flow: usize,
        index: u64,
    },
    Wake {
        host: usize,
        generation: u64,
    },
    Released {
        host: usize,
        packet: Packet,
    },
    HostSent {
        host: usize,
    },
    AtSwitch {
        packet: Packet,
    },
    PortSent {
        port: usize,
    },
    AtHost {
        host: usize,
        packet: Packet,
    },
    Sample,
}

struct Host {
    nic: Nic,
    /// The wake-up scheduled for the pacer's next busy slot (ps); only the
    /// `Wake` event of the current generation counts.
    wake: Option<u64>,
    generation: u64,
    /// Per peer: packets handed to the NIC, not yet released.
    in_pacer: Vec<VecDeque<Packet>>,
    egress: VecDeque<Packet>,
    link_busy: bool,
    /// The NIC's file and its input stream: the host's capture.
    nic_config: NicConfig,
    capture: Vec<GenFrame>,
    releases: Vec<Release>,
}

struct World {
    config: SimConfig,
    now: u64,
    sequence: u64,
    queue: BinaryHeap<Reverse<(u64, u64, usize)>>,
    slots: Vec<Option<Event>>,
    free: Vec<usize>,
    hosts: Vec<Host>,
    flows: Vec<Flow>,
    /// The flow from host s to host d at `s * hosts + d`.
    flow_of: Vec<Option<usize>>,
    switch: Switch,
    samples: Vec<Sample>,
    cnps_sent: u64,
    cnps_received: u64,
    flows_left: usize,
    events: u64,
    /// The host whose NIC step failed.
    failed_host: Option<usize>,
}

/// Why a run stopped: the message, and the host whose NIC failed (an RTL
/// assertion, stall or difference from the golden model), if one did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimFailure {
    pub host: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for SimFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<String> for SimFailure {
    fn from(message: String) -> Self {
        SimFailure { host: None, message }
    }
}

/// Runs `config` with every NIC in `mode`.
pub fn run(config: &SimConfig, mode: CcMode) -> Result<SimRun, SimFailure> {
    config.validate()?;
    let mut config = config.clone();
    config.cc.mode = mode;
    let host_count = config.scenario.hosts();
    let mut hosts = Vec::with_capacity(host_count);
    for h in 0..host_count {
        let nic_config = config.nic_config(h);
        let regs = nic_config.cc.registers().map_err(|e| e.to_string())?;
        let nic = Nic::new(&nic_config, &regs, config.rtl.covers(h))
            .map_err(|e| SimFailure { host: Some(h), message: format!("host {h}: {e}") })?;
        let capture = if config.record_captures { vec![marker_frame(h, &config)] } else { Vec::new() };
        hosts.push(Host {
            nic,
            wake: None,
            generation: 0,
            in_pacer: vec![VecDeque::new(); host_count],
            egress: VecDeque::new(),
            link_busy: false,
            nic_config,
            capture,
            releases: Vec::new(),
        });
    }
    // The jitter's dice apart from the switch's (seeded with the seed itself).
    let mut dice = Dice(!config.seed);
    let line_kbps = config.link_gbps * 1_000_000;
    let flows: Vec<Flow> = config
        .scenario
        .flows()
        .into_iter()
        .map(|(src, dst)| Flow {
            src,
            dst,
            start_ps: if config.jitter_ns == 0 { 0 } else { dice.next() % (config.jitter_ns + 1) * PS_PER_NS },
            rate_kbps: line_kbps,
            ..Flow::default()
        })
        .collect();
    let mut flow_of = vec![None; host_count * host_count];
    for (i, f) in flows.iter().enumerate() {
        flow_of[f.src * host_count + f.dst] = Some(i);
    }
    let switch = Switch::new(host_count, config.buffer_bytes, config.red, config.seed);
    let mut world = World {
        now: 0,
        sequence: 0,
        queue: BinaryHeap::new(),
        slots: Vec::new(),
        free: Vec::new(),
        hosts,
        flows_left: flows.len(),
        flows,
        flow_of,
        switch,
        samples: Vec::new(),
        cnps_sent: 0,
        cnps_received: 0,
        events: 0,
        failed_host: None,
        config,
    };
    for flow in 0..world.flows.len() {
        let start = world.flows[flow].start_ps;
        world.schedule(start, Event::Post { flow });
    }
    world.schedule(0, Event::Sample);
    world.run().map_err(|message| SimFailure { host: world.failed_host, message })?;
    let completion_ps = (world.flows_left == 0).then(|| world.flows.iter().filter_map(|f| f.done_ps).max()).flatten();
    let peak_port = (0..host_count).map(|p| world.switch.peak_depth(p)).collect();
    Ok(SimRun {
        mode,
        peak_buffer: world.switch.peak_used,
        peak_port,
        marks: world.switch.marks,
        drops: world.switch.drops,
        cnps_sent: world.cnps_sent,
        cnps_received: world.cnps_received,
        completion_ps,
        captures: world
            .hosts
            .iter_mut()
            .map(|h| (std::mem::take(&mut h.nic_config), std::mem::take(&mut h.capture)))
            .collect(),
        releases: world.hosts.iter_mut().map(|h| std::mem::take(&mut h.releases)).collect(),
        events: world.events,
        flows: world.flows,
        samples: world.samples,
        config: world.config,
    })
}

/// The frame that opens host `h`'s capture at tick 0, so that a replay's
/// time base is the simulation's: broadcast, experimental EtherType, the
/// scenario in words.
fn marker_frame(host: usize, config: &SimConfig) -> GenFrame {
    let mut data = vec![0xFF; 6];
    data.extend(host_mac(packet::address_of(host)));
    data.extend(MARKER_ETHERTYPE.to_be_bytes());
    data.extend(format!("metaroce sim: {}, host {host}", config.scenario.name()).bytes());
    data.resize(data.len().max(60), 0);
    GenFrame::at(START_NS, data)
}

impl World {
    fn schedule(&mut self, at: u64, event: Event) {
        let slot = match self.free.pop() {
            Some(i) => {
                self.slots[i] = Some(event);
                i
            }
            None => {
                self.slots.push(Some(event));
                self.slots.len() - 1
            }
        };
        self.queue.push(Reverse((at, self.sequence, slot)));
        self.sequence += 1;
    }

    fn run(&mut self) -> Result<(), String> {
        let limit = self.config.max_time_ns * PS_PER_NS;
        while let Some(Reverse((at, _, slot))) = self.queue.pop() {
            if at > limit {
                break;
            }
            self.now = at;
            self.events += 1;
            let event = self.slots[slot].take().expect("a scheduled event");
            self.free.push(slot);
            match event {
                Event::Post { flow } => self.post(flow)?,
                Event::Nak { flow, index } => {
                    self.flows[flow].resend.push_back(index);
                    self.post(flow)?;
                }
                Event::Wake { host, generation } => {
                    if self.hosts[host].generation == generation {
                        self.hosts[host].wake = None;
                        self.step(host, None)?;
                    }
                }
                Event::Released { host, packet } => {
                    self.hosts[host].egress.push_back(packet);
                    self.start_host_link(host);
                }
                Event::HostSent { host } => {
                    self.hosts[host].link_busy = false;
                    self.start_host_link(host);
                }
                Event::AtSwitch { packet } => self.at_switch(packet),
                Event::PortSent { port } => {
                    self.switch.done(port);
                    self.start_port(port);
                }
                Event::AtHost { host, packet } => self.at_host(host, packet)?,
                Event::Sample => {
                    self.sample();
                    if self.flows_left > 0 {
                        self.schedule(self.now + self.config.sample_ns * PS_PER_NS, Event::Sample);
                    }
                }
            }
        }
        if self.samples.last().is_none_or(|s| s.time_ns != self.now / PS_PER_NS) {
            self.sample();
        }
        Ok(())
    }

    /// The host hands `flow`'s next packet (a resend first) to its NIC,
    /// unless one is already there or nothing is left.
    fn post(&mut self, flow: usize) -> Result<(), String> {
        let count = self.config.packets_per_message();
        let f = &mut self.flows[flow];
        if f.in_nic {
            return Ok(());
        }
        let index = match f.resend.pop_front() {
            Some(index) => index,
            None if f.next_index < count => {
                f.next_index += 1;
                f.next_index - 1
            }
            None => return Ok(()),
        };
        f.in_nic = true;
        let (src, dst) = (f.src, f.dst);
        let hosts = self.hosts.len();
        let packet =
            Packet::data(flow, src, dst, qp_toward(dst, src, hosts), index, count, self.config.payload_of(index));
        let data = packet.data.clone();
        self.hosts[src].in_pacer[dst].push_back(packet);
        self.step(src, Some((&data, Some(qp_toward(src, dst, hosts)))))
    }

    /// One NIC step at the current time: a frame in (if any), time moves
    /// on, and what the NIC made goes out.
    fn step(&mut self, h: usize, frame: Option<(&[u8], Option<u32>)>) -> Result<(), String> {
        let tick = self.now / PS_PER_NS;
        let host = &mut self.hosts[h];
        let failed = &mut self.failed_host;
        let mut at = |e: String| {
            *failed = Some(h);
            format!("host {h} at {tick} ns: {e}")
        };
        if let Some((data, tx_qp)) = frame {
            host.nic.frame(data, tick, tx_qp).map_err(&mut at)?;
            if self.config.record_captures {
                host.capture.push(GenFrame::at(START_NS + tick, data.to_vec()));
            }
        }
        let out = host.nic.advance(tick).map_err(&mut at)?;
        self.apply(h, out)
    }

    fn apply(&mut self, h: usize, out: NicOutputs) -> Result<(), String> {
        for (_, frame) in out.cnps {
            self.cnps_sent += 1;
            self.hosts[h].egress.push_back(Packet::cnp(frame));
        }
        self.start_host_link(h);
        for (_, qp, rate) in out.rates {
            let hosts = self.hosts.len();
            if let Some(flow) = peer_of(h, qp, hosts).and_then(|p| self.flow_of[h * hosts + p]) {
                self.flows[flow].rate_kbps = rate;
            }
        }
        for release in out.releases {
            self.hosts[h].releases.push(release);
            let peer = peer_of(h, release.qp, self.hosts.len());
            let Some(queue) = peer.and_then(|p| self.hosts[h].in_pacer.get_mut(p)) else {
                return Err(format!("host {h}: the pacer released QP {}, which the host never used", release.qp));
            };
            let Some(packet) = queue.pop_front() else {
                return Err(format!("host {h}: the pacer released QP {} with nothing posted", release.qp));
            };
            if release.len as usize != packet.data.len() {
                return Err(format!(
                    "host {h}: the pacer released {} B on QP {}; the host posted {} B",
                    release.len,
                    release.qp,
                    packet.data.len()
                ));
            }
            if release.dropped {
                // The pacer was full: the host tries again a little later.
                let flow = packet.flow.expect("a data packet");
                self.flows[flow].in_nic = false;
                self.flows[flow].resend.push_front(packet.index);
                self.schedule(self.now + self.config.sample_ns * PS_PER_NS, Event::Post { flow });
                continue;
            }
            let at = (release.time * PS_PER_NS).max(self.now);
            self.schedule(at, Event::Released { host: h, packet });
        }
        let host = &mut self.hosts[h];
        let wake = out.next_busy.map(|tick| (tick * PS_PER_NS).max(self.now));
        if wake != host.wake {
            host.generation += 1;
            host.wake = wake;
            if let Some(at) = wake {
                let generation = host.generation;
                self.schedule(at, Event::Wake { host: h, generation });
            }
        }
        Ok(())
    }

    fn start_host_link(&mut self, h: usize) {
        let host = &mut self.hosts[h];
        if host.link_busy {
            return;
        }
        let Some(packet) = host.egress.pop_front() else { return };
        host.link_busy = true;
        let end = self.now + packet.wire_ps(self.config.link_gbps);
        if let Some(flow) = packet.flow {
            self.flows[flow].in_nic = false;
            self.schedule(self.now, Event::Post { flow });
        }
        self.schedule(end, Event::HostSent { host: h });
        self.schedule(end + self.config.link_delay_ns * PS_PER_NS, Event::AtSwitch { packet });
    }

    fn at_switch(&mut self, packet: Packet) {
        let port = packet.dst_host();
        let (flow, index) = (packet.flow, packet.index);
        if self.switch.enqueue(port, packet) == Enqueued::Dropped {
            if let Some(flow) = flow {
                self.flows[flow].lost_packets += 1;
                let nak = self.now + NAK_DELAYS * self.config.link_delay_ns * PS_PER_NS;
                self.schedule(nak, Event::Nak { flow, index });
            }
            return;
        }
        self.start_port(port);
    }

    fn start_port(&mut self, port: usize) {
        let Some(packet) = self.switch.start(port) else { return };
        let end = self.now + packet.wire_ps(self.config.link_gbps);
        self.schedule(end, Event::PortSent { port });
        self.schedule(end + self.config.link_delay_ns * PS_PER_NS, Event::AtHost { host: port, packet });
    }

    fn at_host(&mut self, h: usize, packet: Packet) -> Result<(), String> {
        match packet.flow {
            Some(flow) => {
                let f = &mut self.flows[flow];
                f.delivered_packets += 1;
                f.delivered_bytes += packet.data.len() as u64;
                self.check_done(flow);
            }
            None => self.cnps_received += 1,
        }
        self.step(h, Some((&packet.data, None)))
    }

    fn check_done(&mut self, flow: usize) {
        let count = self.config.packets_per_message();
        let f = &mut self.flows[flow];
        if f.done_ps.is_none() && f.delivered_packets == count {
            f.done_ps = Some(self.now);
            self.flows_left -= 1;
        }
    }

    fn sample(&mut self) {
        let ports = self.hosts.len();
        self.samples.push(Sample {
            time_ns: self.now / PS_PER_NS,
            rate_kbps: self.flows.iter().map(|f| f.rate_kbps).collect(),
            delivered_bytes: self.flows.iter().map(|f| f.delivered_bytes).collect(),
            port_depth: (0..ports).map(|p| self.switch.depth(p)).collect(),
            buffer_used: self.switch.used,
            marks: self.switch.marks,
            drops: self.switch.drops,
            cnps: self.cnps_sent,
        });
    }
}
