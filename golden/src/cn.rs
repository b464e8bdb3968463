//! The congestion-notification block (`SPEC.md` §6): the notification point,
//! the responder and the reaction point behind one event input, as
//! `rtl/roce_cn.v`.

use crate::cc_params::CcRegisters;
use crate::cn_event::{CnEvent, CnEventKind, NicConfig};
use crate::notify::{CnpSent, NotificationPoint};
use crate::reaction::{RateChange, ReactionPoint};
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

/// The block's three parts for one NIC.
#[derive(Debug, Clone)]
pub struct CongestionNotifier {
    pub regs: CcRegisters,
    pub np: NotificationPoint,
    pub responder: Responder,
    pub rp: ReactionPoint,
}

/// What the block sends for one event: its frames (CNPs, ACKs and NAKs)
/// and the reaction point's transactions.
#[derive(Debug, Clone, Default)]
pub struct CnOutputs {
    pub cnps: Vec<CnpSent>,
    pub acks: Vec<AckSent>,
    pub rates: Vec<RateChange>,
}

impl CongestionNotifier {
    pub fn new(qp_count: usize, regs: CcRegisters) -> Self {
        CongestionNotifier {
            regs,
            np: NotificationPoint::new(qp_count),
            responder: Responder::new(qp_count),
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

    /// One event; a CNP, an ACK or NAK and rate changes go to the outputs.
    pub fn process(&mut self, ev: &CnEvent, out: &mut CnOutputs) {
        match ev.kind {
            CnEventKind::RxData => {
                out.cnps.extend(self.np.receive(ev, &self.regs));
                out.acks.extend(self.responder.receive(ev, &self.regs));
            }
            CnEventKind::RxCnp | CnEventKind::TxData => self.rp.handle(ev, &self.regs, &mut out.rates),
        }
    }
}
