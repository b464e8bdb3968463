//! One NIC's golden CN block on the frames at its port, for the catalog's
//! captures that are made of a block's own answers (the responder's ACKs
//! and NAKs, the requester's retransmit requests).

use metaroce_golden::cn::{CnOutputs, CongestionNotifier, TimeBase, DEFAULT_QP_COUNT};
use metaroce_golden::cn_event::{classify, NicConfig};
use metaroce_golden::{parse_frame, ParserConfig};

/// A NIC's CN block, its clock and what it has sent so far.
pub(super) struct Side {
    cn: CongestionNotifier,
    nic: NicConfig,
    pub(super) time: TimeBase,
    pub(super) out: CnOutputs,
}

impl Side {
    pub(super) fn new(nic: &NicConfig) -> Self {
        let regs = nic.cc.registers().expect("the catalog's parameters are in range");
        let mut cn = CongestionNotifier::new(DEFAULT_QP_COUNT, regs);
        cn.load_qp_table(nic).expect("the catalog's QPs are in range");
        Side { cn, nic: nic.clone(), time: TimeBase::default(), out: CnOutputs::default() }
    }

    /// Takes the frame at `time_ns`; what it makes the block send is added
    /// to `out`.
    pub(super) fn frame(&mut self, data: &[u8], time_ns: u64) {
        let record = parse_frame(data, false, &ParserConfig::default());
        let mac = self.nic.mac().expect("the catalog's MAC parses");
        if let Some(event) = classify(&record, self.time.tick(time_ns), mac, &self.nic) {
            self.cn.process(&event, &mut self.out);
        }
    }
}
