//! The congestion-notification block (`SPEC.md` §6): the notification point
//! and the reaction point behind one event input, as `rtl/roce_cn.v`.

use crate::cc_params::CcRegisters;
use crate::cn_event::{CnEvent, CnEventKind, NicConfig};
use crate::notify::{CnpSent, NotificationPoint};
use crate::reaction::{RateChange, ReactionPoint};

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

/// Both points of one NIC.
#[derive(Debug, Clone)]
pub struct CongestionNotifier {
    pub regs: CcRegisters,
    pub np: NotificationPoint,
    pub rp: ReactionPoint,
}

impl CongestionNotifier {
    pub fn new(qp_count: usize, regs: CcRegisters) -> Self {
        CongestionNotifier { regs, np: NotificationPoint::new(qp_count), rp: ReactionPoint::new(qp_count, &regs) }
    }

    /// Loads the QP context table; refuses a local QP beyond the block.
    pub fn load_qp_table(&mut self, nic: &NicConfig) -> Result<(), String> {
        for ctx in &nic.qps {
            if !self.np.set_remote(ctx.local, ctx.remote) {
                return Err(format!(
                    "QP context table: local QP {} is beyond the {} QPs of the block",
                    ctx.local,
                    self.np.entries.len()
                ));
            }
        }
        Ok(())
    }

    /// One event; a CNP and rate changes go to the two outputs.
    pub fn process(&mut self, ev: &CnEvent, cnps: &mut Vec<CnpSent>, rates: &mut Vec<RateChange>) {
        match ev.kind {
            CnEventKind::RxData => cnps.extend(self.np.receive(ev, &self.regs)),
            CnEventKind::RxCnp | CnEventKind::TxData => self.rp.handle(ev, &self.regs, rates),
        }
    }
}
