//! The loop's reliable delivery (`SPEC.md` §9.7): with `ack_mode` on, the
//! receivers' NICs answer with ACKs and NAKs that cross the switch like any
//! frame, the senders' requesters ask for packets again, and the hosts
//! re-post them by PSN (a NIC re-reads host memory; it buffers no payload).
//! A receiver takes its packets as its responder does: in order only with
//! `rocev2` (go-back-N: the responder NAKs the first gap and drops what
//! follows until the expected PSN comes), also up to 64 past a gap with
//! `metaroce` (selective ACKs, and only the holes sent again). Beside it,
//! random loss on one link (`--loss`).

use metaroce_golden::cc_params::AckMode;
use metaroce_golden::requester::{RetxCause, RetxRequest};

use super::packet::Packet;
use super::scenario::peer_of;
use super::world::{Event, World, NAK_DELAYS, PS_PER_NS};

impl World {
    /// Data packet `index` of `flow` was lost (switch or link): without
    /// `ack_mode` the loop's stand-in resends it once the receiver's NAK
    /// would be back; with it the transport must find out for itself.
    pub(super) fn lose(&mut self, flow: usize, index: u64, copy: u32) {
        self.flows[flow].lost_packets += 1;
        self.flows[flow].transport.lost_copy(index, copy);
        if !self.config.reliable() {
            let nak = self.now + NAK_DELAYS * self.config.link_delay_ns * PS_PER_NS;
            self.schedule(nak, Event::Nak { flow, index });
        }
    }

    /// Whether the frame the switch starts towards `port` is lost on the
    /// wire (`--loss`).
    pub(super) fn lost_on_link(&mut self, port: usize, packet: &Packet) -> bool {
        let loss = self.config.loss;
        if loss.rate == 0.0 || port != loss.port || packet.is_mac_control() {
            return false;
        }
        if self.loss_dice.next() >= loss.threshold() {
            return false;
        }
        self.link_losses.count(packet);
        if let Some(flow) = packet.flow {
            self.lose(flow, packet.index, packet.copy);
        }
        true
    }

    /// A data packet of `flow` starts on its sender's wire: it learns which
    /// copy it is.
    pub(super) fn data_on_wire(&mut self, flow: usize, packet: &mut Packet) {
        packet.copy = self.flows[flow].transport.on_wire(packet.index, packet.data.len() as u64);
    }

    /// A data packet reaches its receiver: whether the receiver takes it
    /// (with `ack_mode`: rocev2 in order only, metaroce also ahead within
    /// its responder's bitmap).
    pub(super) fn accepts(&mut self, flow: usize, index: u64) -> bool {
        if !self.config.reliable() {
            return true;
        }
        let selective = self.config.cc.ack_mode == AckMode::Metaroce;
        let t = &mut self.flows[flow].transport;
        let taken = t.take(index, selective);
        t.discarded += u64::from(!taken);
        taken
    }

    /// Host `h`'s requester asks for packets again: on a go-back its host
    /// goes back to the request's PSN and posts from there (every packet
    /// before it is acknowledged); on a selective request it queues the
    /// PSNs the request names; retry exhausted ends the flow unfinished.
    pub(super) fn retransmit(&mut self, h: usize, request: &RetxRequest) -> Result<(), String> {
        let hosts = self.hosts.len();
        let Some(flow) = peer_of(h, request.qp, hosts).and_then(|p| self.flow_of[h * hosts + p]) else {
            return Err(format!(
                "host {h}: the requester asked to re-post QP {}, on which the host sends nothing",
                request.qp
            ));
        };
        let f = &mut self.flows[flow];
        match request.cause {
            RetxCause::RetryExhausted => {
                // The QP's error is latched: one such request per QP. A flow
                // done before it has ended already.
                if f.transport.exhausted_ps.is_none() && f.done_ps.is_none() {
                    self.flows_left -= 1;
                }
                f.transport.exhausted_ps.get_or_insert(self.now);
                return Ok(());
            }
            RetxCause::Nak => f.transport.nak_requests += 1,
            RetxCause::Timeout => f.transport.timeout_requests += 1,
            RetxCause::Selective => {
                // Only the PSNs it names, each behind what is already
                // queued; the flow's order of new packets goes on after.
                f.transport.selective_requests += 1;
                for psn in request.psns() {
                    let index = u64::from(psn);
                    if index < f.next_index && !f.resend.contains(&index) {
                        f.resend.push_back(index);
                    }
                }
                self.schedule(self.now, Event::Post { flow });
                return Ok(());
            }
        }
        // From the request's PSN on, in order; what the pacer had no room
        // for is among those (or acknowledged).
        f.resend.clear();
        f.next_index = u64::from(request.psn);
        self.schedule(self.now, Event::Post { flow });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::report::summarize;
    use super::super::setup::run;
    use super::super::{LinkLoss, Scenario, SimConfig};
    use metaroce_golden::cc_params::{AckMode, CcMode};

    /// A 4:1 incast of 256 packets a flow, the NICs' go-back-N on, a
    /// 65.5 µs timer (`retx_timeout` 4), and `loss` on the receiver's link.
    fn lossy(loss: f64) -> SimConfig {
        let mut config = SimConfig::new(Scenario::Incast { senders: 4 }, 100);
        (config.message_bytes, config.mtu, config.jitter_ns) = (256 << 10, 1024, 3000);
        config.cc.ack_mode = AckMode::Rocev2;
        config.cc.retx_timeout = 4;
        config.loss = LinkLoss { port: 0, rate: loss };
        config.record_captures = false;
        config
    }

    /// Every lost data packet is sent again until each arrives in order:
    /// a packet lost k times is on its sender's wire at least k + 1 times.
    #[test]
    fn go_back_n_delivers_every_packet_and_counts_every_resend() {
        let clean = run(&lossy(0.0), CcMode::Dcqcn).unwrap();
        let run = run(&lossy(0.01), CcMode::Dcqcn).unwrap();
        let count = lossy(0.0).packets_per_message();
        let lost: u64 = run.flows.iter().map(|f| f.lost_packets).sum();
        let on_link = run.link_losses;
        assert!(on_link.data > 0 && lost == on_link.data && run.drops == 0, "{on_link:?} lost, {lost} data");
        // Only data crosses the lossy link.
        assert_eq!(on_link.total(), on_link.data);
        for f in &run.flows {
            let t = &f.transport;
            assert!(f.done_ps.is_some() && t.exhausted_ps.is_none(), "{f:?}");
            assert_eq!((f.delivered_packets, t.expected, t.wire_high), (count, count, count));
            // Every lost copy was stood in for by one sent again, before or
            // after it was lost, or its packet arrived by another copy.
            assert_eq!(t.retx_of_lost + t.lost_of_delivered, f.lost_packets, "{t:?}");
            assert!(t.retx_of_lost <= t.retx_packets, "{t:?}");
        }
        let r = summarize(&run).reliability.unwrap();
        assert!(r.nak_requests > 0 && r.retx_excess > 0 && r.discarded > 0, "{r:?}");
        assert_eq!(r.data_packets, 4 * count + r.retx_packets);
        // Only data crosses the lossy link: every ACK and NAK arrives.
        assert!(run.acks_sent > 0 && run.acks_received == run.acks_sent);
        let c = summarize(&clean).reliability.unwrap();
        assert_eq!((c.retx_packets, c.nak_requests, c.timeout_requests, c.discarded), (0, 0, 0, 0));
        // An ACK per AckReq (each message's last) and per 64 in order.
        assert_eq!(clean.acks_sent, 4 * (count / 64));
        assert!(run.completion_ps.unwrap() > clean.completion_ps.unwrap());
    }

    /// Host 0 of a 3-host all-to-all sends and receives over the lossy
    /// link: some of the ACKs and NAKs to it are lost, and the next one, or
    /// its timer, covers for each.
    #[test]
    fn lost_acks_and_naks_are_covered_by_the_next_or_the_timer() {
        let mut config = lossy(0.05);
        config.scenario = Scenario::AllToAll { hosts: 3 };
        config.cc.ack_coalesce_pkts = 4;
        let run = run(&config, CcMode::Dcqcn).unwrap();
        assert!(run.acks_received < run.acks_sent, "{} of {} arrived", run.acks_received, run.acks_sent);
        let count = config.packets_per_message();
        for f in &run.flows {
            assert!(f.done_ps.is_some() && f.transport.exhausted_ps.is_none(), "{f:?}");
            assert_eq!(f.delivered_packets, count);
        }
        assert!(run.completion_ps.is_some());
    }

    /// A message of one packet has no packet after it to show a gap: each
    /// loss is found by the sender's timer alone (the loop steps a NIC at
    /// its next timer), and a QP whose every try is lost runs out of retries.
    #[test]
    fn the_timer_alone_recovers_a_lost_tail() {
        let mut config = lossy(0.5);
        config.message_bytes = 1024;
        config.cc.retry_cnt = 2;
        let run = run(&config, CcMode::Dcqcn).unwrap();
        let (mut timeouts, mut lost, mut exhausted) = (0, 0, 0);
        for f in &run.flows {
            let t = &f.transport;
            assert_eq!(t.nak_requests, 0, "{f:?}");
            // Each lost try is one timeout; the last one, if lost, runs out.
            match t.exhausted_ps {
                Some(_) => {
                    assert!(f.done_ps.is_none() && f.lost_packets == 3 && t.timeout_requests == 2, "{f:?}");
                    // The last try's loss: nothing stands in for it.
                    assert_eq!(t.lost_unrecovered(), 1, "{f:?}");
                    exhausted += 1;
                }
                None => assert!(f.done_ps.is_some() && t.timeout_requests == f.lost_packets, "{f:?}"),
            }
            assert_eq!(t.retx_of_lost + t.lost_of_delivered + t.lost_unrecovered(), f.lost_packets, "{t:?}");
            (timeouts, lost) = (timeouts + t.timeout_requests, lost + f.lost_packets);
        }
        assert!(timeouts > 0 && lost > 0, "no loss at this seed: {lost}");
        assert_eq!(run.completion_ps.is_none(), exhausted > 0);
        let r = summarize(&run).reliability.unwrap();
        assert_eq!((r.timeout_requests, r.flows_exhausted), (timeouts, exhausted));
    }
}
