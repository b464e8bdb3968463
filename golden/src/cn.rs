//! The congestion-notification block (`SPEC.md` §6): the notification point,
//! the responder, the requester and the reaction point behind one event
//! input, as `rtl/roce_cn.v`.

use crate::cc_params::CcRegisters;
use crate::cn_event::{CnEvent, CnEventKind, NicConfig};
use crate::notify::{CnpSent, NotificationPoint};
use crate::reaction::{RateChange, ReactionPoint};
use crate::requester::{Requester, RetxRequest};
use crate::responder::{AckSent, Responder};

/// QPs per block in the default build (RTL parameter `QP_COUNT`).
pub const DEFAULT_QP_COUNT: usize = 1024;

/// The shared time base (`SPEC.md` §2): a frame's tick is its capture time
/// in ns minus the first frame's, and never goes backwards (a frame stamped
/// before its predecessor gets the predecessor's tick).
#[derive(Debug, Clone, Copy, Default)]
pub struct TimeBase {
    first: Option<u64>,
    last: u64,
}

impl TimeBase {
    pub fn tick(&mut self, time_ns: u64) -> u64 {
        let first = *self.first.get_or_insert(time_ns);
        self.last = self.last.max(time_ns.saturating_sub(first));
        self.last
    }
    /// The capture time of a tick.
    pub fn time_ns(&self, tick: u64) -> u64 {
        self.first.unwrap_or(0) + tick
    }
}

/// The block's four parts for one NIC.
#[derive(Debug, Clone)]
pub struct CongestionNotifier {
    pub regs: CcRegisters,
    pub np: NotificationPoint,
    pub responder: Responder,
    pub requester: Requester,
    pub rp: ReactionPoint,
}

/// What the block sends for one event: its frames (CNPs, ACKs and NAKs),
/// the reaction point's transactions and the requester's retransmit
/// requests.
#[derive(Debug, Clone, Default)]
pub struct CnOutputs {
    pub cnps: Vec<CnpSent>,
    pub acks: Vec<AckSent>,
    pub rates: Vec<RateChange>,
    pub retx: Vec<RetxRequest>,
}

impl CongestionNotifier {
    pub fn new(qp_count: usize, regs: CcRegisters) -> Self {
        CongestionNotifier {
            regs,
            np: NotificationPoint::new(qp_count),
            responder: Responder::new(qp_count),
            requester: Requester::new(qp_count),
            rp: ReactionPoint::new(qp_count, &regs),
        }
    }

    /// Loads the QP context table; refuses a local QP beyond the block.
    pub fn load_qp_table(&mut self, nic: &NicConfig) -> Result<(), String> {
        for ctx in &nic.qps {
            if !self.np.set_remote(ctx.local, ctx.remote)
                || !self.responder.set_context(ctx.local, ctx.remote, ctx.rq_psn)
            {
                return Err(format!(
                    "QP context table: local QP {} is beyond the {} QPs of the block",
                    ctx.local,
                    self.np.entries.len()
                ));
            }
        }
        Ok(())
    }

    /// One event; a CNP, an ACK or NAK, rate changes and retransmit
    /// requests go to the outputs. Received data goes to the notification
    /// point and the responder, sent data and a CNP to the reaction point,
    /// and every event to the requester (its time for the timers, and its
    /// own input: ACKs and NAKs, sent RC requests); each part takes what
    /// is its own.
    pub fn process(&mut self, ev: &CnEvent, out: &mut CnOutputs) {
        match ev.kind {
            CnEventKind::RxData => {
                out.cnps.extend(self.np.receive(ev, &self.regs));
                out.acks.extend(self.responder.receive(ev, &self.regs));
            }
            CnEventKind::TxData | CnEventKind::RxCnp => self.rp.handle(ev, &self.regs, &mut out.rates),
            CnEventKind::Time => {}
        }
        // Every event carries the time to the requester's timers.
        self.requester.handle(ev, &self.regs, &mut out.retx);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cc_params::{AckMode, CcParams};
    use crate::cn_event::{classify, QpContext};
    use crate::requester::{RetxCause, RetxRequest};
    use crate::responder::{ack_frame, AETH_ACK, AETH_NAK_PSN_SEQ};
    use crate::{parse_frame, ParseRecord, ParserConfig};

    pub(crate) const LOCAL_MAC: [u8; 6] = [2, 0, 0, 0, 0, 1];
    pub(crate) const PEER_MAC: [u8; 6] = [2, 0, 0, 0, 0, 2];

    /// The parse record of an RC ACKNOWLEDGE from `from` to `to`.
    pub(crate) fn ack_record(
        from: [u8; 6],
        to: [u8; 6],
        dest_qp: u32,
        psn: u32,
        syndrome: u8,
        regs: &CcRegisters,
    ) -> ParseRecord {
        // ack_frame answers an event: it swaps the event's addresses.
        let mut ev = CnEvent::new(0, CnEventKind::RxData, 0);
        (ev.eth_src, ev.eth_dst) = (to, from);
        ev.ip_src[12..].copy_from_slice(&[10, 0, 0, 1]);
        ev.ip_dst[12..].copy_from_slice(&[10, 0, 0, 2]);
        parse_frame(&ack_frame(&ev, dest_qp, psn, syndrome, 0, None, regs), false, &ParserConfig::default())
    }

    #[test]
    fn sent_requests_and_received_naks_reach_the_requester() {
        let mut regs = CcParams::default().registers().unwrap();
        regs.ack_mode = AckMode::Rocev2 as u8;
        let nic = NicConfig {
            local_mac: None,
            qps: vec![QpContext { local: 7, remote: 0x123, priority: 0, rq_psn: None }],
            cc: CcParams::default(),
        };
        let mut cn = CongestionNotifier::new(DEFAULT_QP_COUNT, regs);
        cn.load_qp_table(&nic).unwrap();
        let mut out = CnOutputs::default();
        // SEND ONLY requests 10..14 to the remote QP: sent data of local QP 7.
        for psn in 10..14 {
            let mut record = ack_record(LOCAL_MAC, PEER_MAC, 0x123, psn, AETH_ACK, &regs);
            record.opcode = Some(0x04);
            let ev = classify(&record, u64::from(psn), Some(LOCAL_MAC), &nic).unwrap();
            assert_eq!((ev.kind, ev.qp, ev.psn, ev.rc_req, ev.syndrome), (CnEventKind::TxData, 7, psn, true, None));
            cn.process(&ev, &mut out);
        }
        // The peer's NAK of PSN 11 to local QP 7.
        let record = ack_record(PEER_MAC, LOCAL_MAC, 7, 11, AETH_NAK_PSN_SEQ, &regs);
        let ev = classify(&record, 20, Some(LOCAL_MAC), &nic).unwrap();
        assert_eq!(
            (ev.kind, ev.qp, ev.psn, ev.rc_req, ev.syndrome),
            (CnEventKind::RxData, 7, 11, false, Some(AETH_NAK_PSN_SEQ))
        );
        cn.process(&ev, &mut out);
        assert_eq!(
            out.retx,
            [RetxRequest { time: 20, qp: 7, psn: 11, count: 3, cause: RetxCause::Nak, mask: u64::MAX }]
        );
        assert!(out.acks.is_empty());
        // Only opcode 0x11's AETH is a syndrome: not a READ response's.
        let mut record = ack_record(PEER_MAC, LOCAL_MAC, 7, 12, AETH_ACK, &regs);
        record.opcode = Some(0x10);
        assert_eq!(classify(&record, 21, Some(LOCAL_MAC), &nic).unwrap().syndrome, None);
    }
}
