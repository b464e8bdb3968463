//! The pipeline top (`SPEC.md` §8), as `rtl/roce_pipeline.v`: every frame
//! is parsed and classified; the congestion-notification block takes the
//! events, and every transaction of its reaction point goes on to the pacer
//! in the order it was made.

use crate::cc_params::CcRegisters;
use crate::cn::{CnOutputs, CongestionNotifier};
use crate::cn_event::{classify, CnEvent, CnEventKind, NicConfig};
use crate::pacer::{Pacer, PacerCommand, PacerGeometry, PauseCommand, Release};
use crate::parser::{parse_frame, ParserConfig};
use crate::record::ParseRecord;

/// Everything the top hands out, each stream in its own order: the CN
/// block's (`cn.rates` are the reaction point's transactions, as the pacer
/// takes them) and the pacer's releases.
#[derive(Debug, Clone, Default)]
pub struct PipelineOutputs {
    pub cn: CnOutputs,
    pub releases: Vec<Release>,
}

#[derive(Debug, Clone)]
pub struct Pipeline {
    pub cn: CongestionNotifier,
    pub pacer: Pacer,
    parser: ParserConfig,
    local_mac: Option<[u8; 6]>,
    nic: NicConfig,
}

impl Pipeline {
    /// The default build: 4096 QPs in every block.
    pub fn new(nic: &NicConfig, regs: &CcRegisters, parser: ParserConfig) -> Result<Self, String> {
        let geometry = PacerGeometry::default();
        let mut cn = CongestionNotifier::new(geometry.qp_count, *regs);
        cn.load_qp_table(nic)?;
        let mut pacer = Pacer::new(geometry, regs);
        for ctx in &nic.qps {
            if !pacer.set_priority(ctx.local, ctx.priority) {
                return Err(format!("QP context table: local QP {} has priority {}; 0-7", ctx.local, ctx.priority));
            }
        }
        Ok(Pipeline { cn, pacer, parser, local_mac: nic.mac()?, nic: nic.clone() })
    }

    /// One frame at `tick`; returns the event it made, if any.
    pub fn frame(&mut self, data: &[u8], mac_error: bool, tick: u64, out: &mut PipelineOutputs) -> Option<CnEvent> {
        let record = parse_frame(data, mac_error, &self.parser);
        self.record(&record, tick, out)
    }

    /// One frame the parser has already read (its record) at `tick`: what
    /// follows the parser in the pipeline.
    pub fn record(&mut self, record: &ParseRecord, tick: u64, out: &mut PipelineOutputs) -> Option<CnEvent> {
        if let Some(pause) = received_pause(record, self.local_mac) {
            self.pacer.command(&PacerCommand::from_pause(tick, pause), &mut out.releases);
            return None;
        }
        let event = classify(record, tick, self.local_mac, &self.nic)?;
        let first = out.cn.rates.len();
        self.cn.process(&event, &mut out.cn);
        for change in &out.cn.rates[first..] {
            self.pacer.command(&PacerCommand::from_rate_change(change), &mut out.releases);
        }
        Some(event)
    }

    /// Time moves on to `tick` with no frame (`s_adv_*`): the requester's
    /// timers that have run out go back (a time event to the CN block,
    /// `SPEC.md` §6.11), and the pacer releases what is due by then.
    pub fn advance(&mut self, tick: u64, out: &mut PipelineOutputs) {
        self.cn.process(&CnEvent::new(tick, CnEventKind::Time, 0), &mut out.cn);
        self.pacer.advance(tick, &mut out.releases);
    }

    /// When the NIC next has work (`next_busy_*`): the tick a driver must
    /// advance to next, the pacer's next slot while it holds packets or the
    /// requester's next timer, whichever is first.
    pub fn next_busy_tick(&self) -> Option<u64> {
        [self.pacer.next_busy_tick(), self.cn.requester.timer_tick()].into_iter().flatten().min()
    }

    /// The end of the input: the pacer releases what it holds.
    pub fn flush(&mut self, out: &mut PipelineOutputs) {
        self.pacer.flush(&mut out.releases);
    }
}

/// What a PAUSE or PFC frame the link partner sent asks of the pacer: a
/// frame whose source is not this NIC (any, without a local MAC). Its
/// destination is the MAC Control multicast address, not ours (802.3 Annex
/// 31B.3.1), so the source tells.
pub fn received_pause(record: &ParseRecord, local_mac: Option<[u8; 6]>) -> Option<PauseCommand> {
    let from_us = local_mac.is_some_and(|mac| record.eth_src.is_some_and(|src| src.0 == mac));
    PauseCommand::from_record(record).filter(|_| !from_us)
}

/// The side band the host gives a frame it sent (`s_axis_tuser`): its
/// local QP, when the frame is this NIC's sent data.
pub fn sent_qp(event: Option<&CnEvent>) -> Option<u32> {
    event.filter(|e| e.kind == CnEventKind::TxData).map(|e| e.qp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc_params::CcParams;
    use crate::cn_event::QpContext;
    use crate::frame::mac_control_frame;
    use crate::wire::MacControlRepr;

    #[test]
    fn a_pause_from_the_link_partner_reaches_the_pacer_and_our_own_does_not() {
        let ours = [2, 0, 0, 0, 0, 1];
        let pfc = MacControlRepr::Pfc { class_enable: 1 << 3, pause_times: [7; 8] };
        let record = |src| parse_frame(&mac_control_frame(src, &pfc), false, &ParserConfig::default());
        let expected = PauseCommand { enable: 1 << 3, quanta: [7; 8] };
        assert_eq!(received_pause(&record([2, 0, 0, 0, 0, 2]), Some(ours)), Some(expected));
        assert_eq!(received_pause(&record(ours), Some(ours)), None);
        assert_eq!(received_pause(&record(ours), None), Some(expected));
    }

    /// With no traffic after a request, the NIC still asks to be moved on
    /// to its timer (`next_busy`), and the advance there runs it out.
    #[test]
    fn an_advance_runs_the_retransmit_timer_out_when_next_busy_says() {
        use crate::cc_params::AckMode;
        use crate::cn::tests::{ack_record, LOCAL_MAC, PEER_MAC};
        use crate::requester::{RetxCause, RetxRequest};
        use crate::responder::AETH_ACK;
        let cc = CcParams { ack_mode: AckMode::Rocev2, retx_timeout: 1, ..CcParams::default() };
        let regs = cc.registers().unwrap();
        let nic = NicConfig {
            local_mac: Some("02:00:00:00:00:01".into()),
            qps: vec![QpContext { local: 7, remote: 0x123, priority: 0, rq_psn: None }],
            cc,
        };
        let mut p = Pipeline::new(&nic, &regs, ParserConfig::default()).unwrap();
        let mut out = PipelineOutputs::default();
        assert_eq!(p.next_busy_tick(), None);
        // QP 7 sends SEND ONLY PSN 0 at tick 100; the pacer lets it go.
        let mut record = ack_record(LOCAL_MAC, PEER_MAC, 0x123, 0, AETH_ACK, &regs);
        record.opcode = Some(0x04);
        assert_eq!(sent_qp(p.record(&record, 100, &mut out).as_ref()), Some(7));
        p.advance(100, &mut out);
        assert_eq!(out.releases.len(), 1);
        // Due 2^1 units (4,096 ticks each) after unit 0.
        assert_eq!(p.next_busy_tick(), Some(2 << 12));
        p.advance((2 << 12) - 1, &mut out);
        assert!(out.cn.retx.is_empty());
        p.advance(2 << 12, &mut out);
        let timeout = RetxRequest { time: 2 << 12, qp: 7, psn: 0, count: 1, cause: RetxCause::Timeout, mask: u64::MAX };
        assert_eq!(out.cn.retx, [timeout]);
        // Backed off: 2^2 units on.
        assert_eq!(p.next_busy_tick(), Some(6 << 12));
    }

    #[test]
    fn a_qp_priority_beyond_7_is_refused() {
        let regs = CcParams::default().registers().unwrap();
        let mut nic = NicConfig {
            local_mac: None,
            qps: vec![QpContext { local: 1, remote: 2, priority: 7, rq_psn: None }],
            cc: CcParams::default(),
        };
        assert!(Pipeline::new(&nic, &regs, ParserConfig::default()).is_ok());
        nic.qps[0].priority = 8;
        let e = Pipeline::new(&nic, &regs, ParserConfig::default()).unwrap_err();
        assert!(e.contains("priority 8"), "{e}");
    }
}
