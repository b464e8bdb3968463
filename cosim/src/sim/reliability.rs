//! What a run's reliable delivery cost (`SPEC.md` §9.7): goodput, what was
//! sent again and why, and the ACK load on the reverse path.

use metaroce_golden::cc_params::AckMode;
use serde::Serialize;

use super::outputs::{LinkLosses, SimRun};

/// The reliability figures of one run with `ack_mode` on or a lossy link.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReliabilitySummary {
    /// `ack_mode` (`off`: the loop's stand-in resends each drop).
    pub ack_mode: String,
    /// The lossy link's rate and its port (`--loss`), and the frames it lost
    /// (and by kind).
    pub loss_rate: f64,
    pub loss_port: usize,
    pub link_losses: u64,
    pub link_losses_by_kind: LinkLosses,
    /// Message bytes of every flow over the completion time (when every flow
    /// completed), Gb/s.
    pub goodput_gbps: Option<f64>,
    /// Data packets put on the senders' wires, first copies and again.
    pub data_packets: u64,
    pub retx_packets: u64,
    pub retx_bytes: u64,
    /// Of the packets sent again: those whose copy before was lost; the rest
    /// are excess (go-back-N's, a timeout's, or a selective request's past
    /// the bitmap).
    pub retx_of_lost: u64,
    pub retx_excess: u64,
    /// Lost copies of packets another copy delivered: none sent again for
    /// them.
    pub lost_of_delivered: u64,
    /// Lost copies nothing stood in for (a QP that ran out of retries, a
    /// run stopped early).
    pub lost_unrecovered: u64,
    /// The requesters' retransmit requests by cause.
    pub nak_requests: u64,
    pub timeout_requests: u64,
    pub selective_requests: u64,
    pub flows_exhausted: usize,
    /// Packets the receivers dropped as out of order or again.
    pub discarded: u64,
    pub acks_sent: u64,
    /// ACK and NAK frames per data packet sent.
    pub acks_per_data_packet: f64,
}

/// The figures, when the run had `ack_mode` on or a lossy link.
pub fn reliability(run: &SimRun) -> Option<ReliabilitySummary> {
    let c = &run.config;
    if !c.reliable() && c.loss.rate == 0.0 {
        return None;
    }
    let sum = |f: fn(&super::outputs::FlowTransport) -> u64| run.flows.iter().map(|x| f(&x.transport)).sum::<u64>();
    let retx_packets = sum(|t| t.retx_packets);
    let retx_of_lost = sum(|t| t.retx_of_lost);
    let data_packets: u64 = run.releases.iter().flatten().filter(|r| !r.dropped).count() as u64;
    Some(ReliabilitySummary {
        ack_mode: c.cc.ack_mode.name().to_string(),
        loss_rate: c.loss.rate,
        loss_port: c.loss.port,
        link_losses: run.link_losses.total(),
        link_losses_by_kind: run.link_losses,
        goodput_gbps: run
            .completion_ps
            .map(|ps| (run.flows.len() as u64 * c.message_bytes * 8) as f64 / (ps as f64 / 1000.0)),
        data_packets,
        retx_packets,
        retx_bytes: sum(|t| t.retx_bytes),
        retx_of_lost,
        retx_excess: retx_packets - retx_of_lost,
        lost_of_delivered: sum(|t| t.lost_of_delivered),
        lost_unrecovered: sum(|t| t.lost_unrecovered()),
        nak_requests: sum(|t| t.nak_requests),
        timeout_requests: sum(|t| t.timeout_requests),
        selective_requests: sum(|t| t.selective_requests),
        flows_exhausted: run.flows.iter().filter(|f| f.transport.exhausted_ps.is_some()).count(),
        discarded: sum(|t| t.discarded),
        acks_sent: run.acks_sent,
        acks_per_data_packet: if data_packets == 0 { 0.0 } else { run.acks_sent as f64 / data_packets as f64 },
    })
}

/// A column's heading beside its mode: the lossy link's rate, if any.
pub fn loss_label(r: &Option<ReliabilitySummary>) -> String {
    match r {
        Some(r) if r.loss_rate > 0.0 => format!(", {} % loss", r.loss_rate * 100.0),
        _ => String::new(),
    }
}

/// The comparison table's cells (`report::comparison_table`); a dash for a
/// run without the figures.
pub fn loss_cell(r: &Option<ReliabilitySummary>) -> String {
    match r {
        Some(r) if r.loss_rate > 0.0 => {
            let by_kind = r.link_losses_by_kind;
            let kinds = [(by_kind.acks, "ACK or NAK"), (by_kind.cnps, "CNP")];
            let others: Vec<String> = kinds.iter().filter(|(n, _)| *n > 0).map(|(n, k)| format!("{n} {k}")).collect();
            format!(
                "ack_mode {}; {} % to host {}: {} frames lost{}",
                r.ack_mode,
                r.loss_rate * 100.0,
                r.loss_port,
                r.link_losses,
                match others.is_empty() {
                    true => String::new(),
                    false => format!(" ({} data, {})", by_kind.data, others.join(", ")),
                }
            )
        }
        Some(r) => format!("ack_mode {}; no link loss", r.ack_mode),
        None => "—".into(),
    }
}

pub fn goodput_cell(r: &Option<ReliabilitySummary>) -> String {
    match r.as_ref().and_then(|r| r.goodput_gbps) {
        Some(g) => format!("{g:.1} Gb/s"),
        None => "—".into(),
    }
}

pub fn sent_again_cell(r: &Option<ReliabilitySummary>) -> String {
    match r {
        Some(r) => format!(
            "{} of {} packets ({:.0} kB): {} lost, {} {}{}{}",
            r.retx_packets,
            r.data_packets,
            r.retx_bytes as f64 / 1000.0,
            r.retx_of_lost,
            r.retx_excess,
            if r.ack_mode == AckMode::Metaroce.name() { "excess" } else { "go-back-N excess" },
            match r.lost_of_delivered {
                0 => String::new(),
                n => format!("; {n} lost copies of packets another copy delivered"),
            },
            match r.lost_unrecovered {
                0 => String::new(),
                n => format!("; {n} lost copies never recovered"),
            }
        ),
        None => "—".into(),
    }
}

pub fn requests_cell(r: &Option<ReliabilitySummary>) -> String {
    match r {
        Some(r) => format!(
            "{} NAK, {}{} timeout; {} QP(s) retry exhausted; {} packets discarded",
            r.nak_requests,
            if r.ack_mode == AckMode::Metaroce.name() {
                format!("{} selective, ", r.selective_requests)
            } else {
                String::new()
            },
            r.timeout_requests,
            r.flows_exhausted,
            r.discarded
        ),
        None => "—".into(),
    }
}

pub fn ack_load_cell(r: &Option<ReliabilitySummary>) -> String {
    match r {
        Some(r) => format!("{:.4} ({} ACKs and NAKs)", r.acks_per_data_packet, r.acks_sent),
        None => "—".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cells_name_every_kind_of_loss() {
        let r = Some(ReliabilitySummary {
            ack_mode: "rocev2".into(),
            loss_rate: 0.01,
            loss_port: 0,
            link_losses: 7,
            link_losses_by_kind: LinkLosses { data: 4, acks: 2, cnps: 1 },
            goodput_gbps: None,
            data_packets: 100,
            retx_packets: 10,
            retx_bytes: 10_000,
            retx_of_lost: 3,
            retx_excess: 7,
            lost_of_delivered: 1,
            lost_unrecovered: 2,
            nak_requests: 1,
            timeout_requests: 1,
            selective_requests: 0,
            flows_exhausted: 1,
            discarded: 0,
            acks_sent: 5,
            acks_per_data_packet: 0.05,
        });
        assert_eq!(loss_cell(&r), "ack_mode rocev2; 1 % to host 0: 7 frames lost (4 data, 2 ACK or NAK, 1 CNP)");
        assert_eq!(
            sent_again_cell(&r),
            "10 of 100 packets (10 kB): 3 lost, 7 go-back-N excess; 1 lost copies of packets another copy \
             delivered; 2 lost copies never recovered"
        );
    }
}
