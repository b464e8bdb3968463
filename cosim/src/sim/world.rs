//! The event loop (`SPEC.md` §9.2-9.3): hosts, links and the switch as
//! discrete events in ps; each NIC stepped at ns ticks.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use metaroce_golden::cn_event::NicConfig;
use metaroce_golden::pacer::Release;

use super::nic::{Nic, NicOutputs};
use super::outputs::{Flow, LinkLosses, Sample};
use super::packet::Packet;
use super::pfc::PfcEvent;
use super::scenario::{peer_of, qp_toward, SimConfig};
use super::switch::{Enqueued, Switch};
use crate::capture::{GenFrame, START_NS};
use crate::dice::Dice;

pub(super) const PS_PER_NS: u64 = 1000;
/// Without `ack_mode`, a drop is known to its sender after three link
/// delays: the next packet reaches the receiver, whose NAK goes back
/// through the switch (queueing and serialization left out).
pub(super) const NAK_DELAYS: u64 = 3;

#[derive(Debug)]
pub(super) enum Event {
    Post {
        flow: usize,
    },
    /// Without `ack_mode`: the receiver's NAK for a dropped packet reaches
    /// the sender (the loop's stand-in for a transport).
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
    /// Half a pause after the last XOFF frame of pause `generation` to
    /// `port`'s host; dropped unheard once that pause has ended.
    PfcRefresh {
        port: usize,
        priority: usize,
        generation: u64,
    },
    Sample,
}

pub(super) struct Host {
    pub(super) nic: Nic,
    /// The wake-up scheduled for the pacer's next busy slot (ps); only the
    /// `Wake` event of the current generation counts.
    pub(super) wake: Option<u64>,
    pub(super) generation: u64,
    /// Per peer: packets handed to the NIC, not yet released.
    pub(super) in_pacer: Vec<VecDeque<Packet>>,
    pub(super) egress: VecDeque<Packet>,
    pub(super) link_busy: bool,
    /// The NIC's file and its input stream: the host's capture.
    pub(super) nic_config: NicConfig,
    pub(super) capture: Vec<GenFrame>,
    pub(super) releases: Vec<Release>,
}

pub(super) struct World {
    pub(super) config: SimConfig,
    pub(super) now: u64,
    pub(super) sequence: u64,
    pub(super) queue: BinaryHeap<Reverse<(u64, u64, usize)>>,
    pub(super) slots: Vec<Option<Event>>,
    pub(super) free: Vec<usize>,
    pub(super) hosts: Vec<Host>,
    pub(super) flows: Vec<Flow>,
    /// The flow from host s to host d at `s * hosts + d`.
    pub(super) flow_of: Vec<Option<usize>>,
    pub(super) switch: Switch,
    pub(super) samples: Vec<Sample>,
    pub(super) cnps_sent: u64,
    pub(super) cnps_received: u64,
    /// The responders' ACK and NAK frames sent and received (`ack_mode`).
    pub(super) acks_sent: u64,
    pub(super) acks_received: u64,
    /// Frames lost on the lossy link (`--loss`), and its dice.
    pub(super) link_losses: LinkLosses,
    pub(super) loss_dice: Dice,
    pub(super) pfc_frames_received: u64,
    /// When the switch first marked a packet, and a NIC first sent a CNP, ps.
    pub(super) first_mark_ps: Option<u64>,
    pub(super) first_cnp_ps: Option<u64>,
    pub(super) flows_left: usize,
    pub(super) events: u64,
    /// The host whose NIC step failed.
    pub(super) failed_host: Option<usize>,
}

impl World {
    pub(super) fn schedule(&mut self, at: u64, event: Event) {
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

    pub(super) fn run(&mut self) -> Result<(), String> {
        let limit = self.config.max_time_ns * PS_PER_NS;
        while let Some(Reverse((at, _, slot))) = self.queue.pop() {
            if at > limit {
                break;
            }
            let event = self.slots[slot].take().expect("a scheduled event");
            self.free.push(slot);
            if let Event::PfcRefresh { port, priority, generation } = event {
                // A refresh of a pause that has ended moves no time on.
                if !self.switch.pfc.as_ref().is_some_and(|p| p.holds(port, priority, generation)) {
                    continue;
                }
            }
            self.now = at;
            self.events += 1;
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
                Event::PfcRefresh { port, priority, generation } => {
                    if let Some(pfc) = &mut self.switch.pfc {
                        pfc.refresh(port, priority, generation);
                    }
                    self.pfc_events();
                }
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
        if f.in_nic || f.transport.exhausted_ps.is_some() {
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
        for request in &out.retx {
            self.retransmit(h, request)?;
        }
        for (_, frame) in out.cnps {
            self.cnps_sent += 1;
            self.first_cnp_ps.get_or_insert(self.now);
            self.hosts[h].egress.push_back(Packet::no_flow(frame));
        }
        for (_, frame) in out.acks {
            self.acks_sent += 1;
            self.hosts[h].egress.push_back(Packet::no_flow(frame));
        }
        self.start_host_link(h);
        for (tick, qp, rate) in out.rates {
            let hosts = self.hosts.len();
            if let Some(flow) = peer_of(h, qp, hosts).and_then(|p| self.flow_of[h * hosts + p]) {
                // At the tick the reaction point stamped: a timer increase
                // is worked off (and told) only at the QP's next event.
                let steps = &mut self.flows[flow].rate_steps;
                debug_assert!(steps.last().is_none_or(|&(t, _)| t <= tick), "a QP's rates come in tick order");
                steps.push((tick, rate));
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
        let Some(mut packet) = host.egress.pop_front() else { return };
        host.link_busy = true;
        let end = self.now + packet.wire_ps(self.config.link_gbps);
        if let Some(flow) = packet.flow {
            self.flows[flow].in_nic = false;
            self.data_on_wire(flow, &mut packet);
            self.schedule(self.now, Event::Post { flow });
        }
        self.schedule(end, Event::HostSent { host: h });
        self.schedule(end + self.config.link_delay_ns * PS_PER_NS, Event::AtSwitch { packet });
    }

    fn at_switch(&mut self, packet: Packet) {
        let port = packet.dst_host();
        let (flow, index, copy) = (packet.flow, packet.index, packet.copy);
        match self.switch.enqueue(port, packet, self.now) {
            Enqueued::Dropped => {
                if let Some(flow) = flow {
                    self.lose(flow, index, copy);
                }
                return;
            }
            Enqueued::Queued { marked } => self.marked(marked),
        }
        self.start_port(port);
    }

    /// Sends the switch's new PFC frames, and those that the frames they
    /// let start make in turn. A pause's running flows note its start
    /// (victims: those whose own egress queue is at or below Kmin; a flow
    /// that started during a pause, at its next refresh), a resume its end
    /// (every flow is on the one lossless priority); an XOFF is refreshed
    /// half its time later.
    fn pfc_events(&mut self) {
        loop {
            let events = self.switch.take_pfc_events();
            if events.is_empty() {
                return;
            }
            for event in events {
                match event {
                    PfcEvent::Pause { port, priority, generation, .. } => {
                        for flow in self.flows.iter_mut().filter(|f| f.src == port && f.running(self.now)) {
                            let victim = self.switch.depth(flow.dst) <= self.config.red.kmin;
                            flow.pause_starts(self.now, victim);
                        }
                        if let Some(pfc) = &self.switch.pfc {
                            let refresh = self.now + pfc.refresh_after_ps();
                            self.schedule(refresh, Event::PfcRefresh { port, priority, generation });
                        }
                        self.start_frame(port);
                    }
                    PfcEvent::Resume { port, .. } => {
                        for flow in self.flows.iter_mut().filter(|f| f.src == port) {
                            flow.pause_ends(self.now);
                        }
                        self.start_frame(port);
                    }
                }
            }
        }
    }

    fn marked(&mut self, marked: bool) {
        if marked {
            self.first_mark_ps.get_or_insert(self.now);
        }
    }

    /// Starts `port`'s next frame if it is idle, then sends the PFC frames
    /// that the frames admitted or sent since made.
    fn start_port(&mut self, port: usize) {
        self.start_frame(port);
        self.pfc_events();
    }

    fn start_frame(&mut self, port: usize) {
        if let Some((packet, marked)) = self.switch.start(port, self.now) {
            self.marked(marked);
            let end = self.now + packet.wire_ps(self.config.link_gbps);
            self.schedule(end, Event::PortSent { port });
            if !self.lost_on_link(port, &packet) {
                self.schedule(end + self.config.link_delay_ns * PS_PER_NS, Event::AtHost { host: port, packet });
            }
        }
    }

    fn at_host(&mut self, h: usize, packet: Packet) -> Result<(), String> {
        match packet.flow {
            Some(flow) => {
                if self.accepts(flow, packet.index) {
                    let f = &mut self.flows[flow];
                    f.delivered_packets += 1;
                    f.delivered_bytes += packet.data.len() as u64;
                    self.check_done(flow);
                }
            }
            None if packet.is_mac_control() => self.pfc_frames_received += 1,
            None if packet.is_ack() => self.acks_received += 1,
            None => self.cnps_received += 1,
        }
        self.step(h, Some((&packet.data, None)))
    }

    fn check_done(&mut self, flow: usize) {
        let count = self.config.packets_per_message();
        let f = &mut self.flows[flow];
        if f.done_ps.is_none() && f.delivered_packets == count {
            f.done_ps = Some(self.now);
            // A flow whose requester gave up has ended already.
            if f.transport.exhausted_ps.is_none() {
                self.flows_left -= 1;
            }
        }
    }

    fn sample(&mut self) {
        let ports = self.hosts.len();
        self.samples.push(Sample {
            time_ns: self.now / PS_PER_NS,
            delivered_bytes: self.flows.iter().map(|f| f.delivered_bytes).collect(),
            port_depth: (0..ports).map(|p| self.switch.depth(p)).collect(),
            buffer_used: self.switch.used,
            marks: self.switch.marks,
            drops: self.switch.drops,
            cnps: self.cnps_sent,
            pfc_pauses: self.switch.pfc_pauses(),
        });
    }
}
