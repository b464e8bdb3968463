//! The requester's retransmit requests (SPEC.md §6.11) on the generated
//! requester captures, in the golden model and the RTL at both widths,
//! against the lists their stories give (catalog/requester.rs).

mod common;

use metaroce_cosim::replay::replay_cn;
use metaroce_cosim::report::{CnRecord, Record};
use metaroce_golden::ParserConfig;

/// The retransmit requests of `cn/rc_requester.pcap` as SPEC.md §6.11
/// gives them, worked out by hand from the capture's story
/// (catalog/requester.rs): the three flows send in turn, one packet every
/// 200 ns, and an answer comes back 2 µs after its request was sent.
#[test]
fn the_requester_goes_back_to_the_naked_psn() {
    let (capture, setup) = common::capture_setup("cn/rc_requester.pcap");
    for rtl_width in [None, Some(64), Some(512)] {
        let replay = replay_cn(&capture, rtl_width, &setup, &ParserConfig::default()).unwrap();
        let requests: Vec<(u32, u32, u32)> = replay
            .transactions
            .iter()
            .filter_map(|t| match &t.record {
                Record::Cn(CnRecord::Retx { qp, psn, count, .. }) => Some((*qp, *psn, *count)),
                _ => None,
            })
            .collect();
        let expected = [
            // QP 0x122 lost 3 (sent at 2.2 µs); 4's NAK is back at 4.8 µs,
            // when 0-7 are out: 3-7 again (6, lost too, among them).
            (0x122, 3, 5),
            // QP 0x120 lost 105 (3.0 µs); 106's NAK is back at 5.6 µs, when
            // 100-109 are out: 105-109 again.
            (0x120, 105, 5),
            // QP 0x120 lost 113 (10.8 µs, after 105-109 again and 110-112);
            // 114's NAK is back at 13.4 µs, when 100-117 are out: 113-117.
            (0x120, 113, 5),
        ];
        assert_eq!(requests, expected, "width {rtl_width:?}");
        // QP 0x122's NAK of 3 again at 12.8 µs is stale: the ACK of 7 came
        // back at 9.6 µs. QP 0x121's lost ACK (of PSN 7) is covered by the
        // next (of 0xF): nothing to resend through the wrap.
    }
}

/// A retransmit request as the JSONL gives it: (tick, qp, psn, count,
/// cause), and the mask of a selective one.
type Request = ((u64, u32, u32, u32, String), Option<String>);

/// The retransmit requests of capture `name` (under pcaps/) as one model
/// replays it (the golden one for `rtl_width` None).
fn retransmit_requests(name: &str, rtl_width: Option<u32>) -> Vec<Request> {
    let (capture, setup) = common::capture_setup(name);
    let replay = replay_cn(&capture, rtl_width, &setup, &ParserConfig::default()).unwrap();
    replay
        .transactions
        .iter()
        .filter_map(|t| match &t.record {
            Record::Cn(CnRecord::Retx { qp, tick, psn, count, cause, mask }) => {
                Some(((*tick, *qp, *psn, *count, cause.clone()), mask.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The retransmit requests of `cn/rc_timeout.pcap` as SPEC.md §6.11 rule 7
/// gives them, worked out by hand from the capture's story
/// (catalog/requester.rs): `retx_timeout` 1 is 2 units of 4,096 ticks, and
/// with one packet sent every 200 ns a timer is seen run out at the first
/// multiple of 200 ticks at or after its due. The list rests on the
/// story's numbers: every tick a multiple of 200 (a 200 ns send gap, 1 µs
/// links), QP 0x122's ACKs every 8 packets (1.6 to 3.2 µs apart) inside its
/// shortest timer (4,097 ns from a start late in a unit), and QP 0x122
/// still sending at 49,200 (222 of its 256 packets gone).
#[test]
fn the_requester_times_out_and_gives_up() {
    for rtl_width in [None, Some(64), Some(512)] {
        let requests: Vec<(u64, u32, u32, u32, String)> =
            retransmit_requests("cn/rc_timeout.pcap", rtl_width).into_iter().map(|(r, _)| r).collect();
        let requests: Vec<(u64, u32, u32, u32, &str)> =
            requests.iter().map(|(t, q, p, c, cause)| (*t, *q, *p, *c, cause.as_str())).collect();
        let expected = [
            // QP 0x121 lost 52 (sent at 1.4 µs); 53's NAK is back at 4.0
            // µs: 52-53 again, retry 1 (the NAK acknowledged 50-51), and
            // the timer starts again at 2^(1+1) units: due at 16,384.
            (4_000, 0x121, 52, 2, "nak"),
            // QP 0x120's timer, started by 8 at tick 0, is due at unit 2
            // (8,192): nothing came back for 8-11 (too few for an ACK) and
            // 12-15 were lost, so everything from una, 8, goes again.
            (8_200, 0x120, 8, 8, "timeout"),
            // QP 0x121's resends were lost: the timer at 16,384 goes back,
            // retry 2, and starts at 2^(1+2) units from unit 4: 49,152.
            (16_400, 0x121, 52, 2, "timeout"),
            // ... and finds both retries used: the QP is in error.
            (49_200, 0x121, 52, 2, "retry_exhausted"),
        ];
        assert_eq!(requests, expected, "width {rtl_width:?}");
    }
}

/// The selective requests of `cn/rc_selective_requester.pcap` (SPEC.md
/// §6.11 rules 8 and 9; the story in catalog/requester.rs), in every model:
/// the holes alone, once, with their masks; a lost resend asked for again
/// once a packet sent after it is shown received; a lost tail left to the
/// timer (`retx_timeout` 2: 4 units, 16,384 ticks); an ACK from before a
/// go-back's copies arrived asking again.
#[test]
fn the_requester_asks_for_the_holes_alone() {
    let selective =
        |tick, qp, psn, count, mask: &str| ((tick, qp, psn, count, "selective".to_string()), Some(mask.into()));
    let timeout = |tick, qp, psn, count| ((tick, qp, psn, count, "timeout".to_string()), None);
    let expected = [
        // QP 0x120: 106's selective ACK (at once on the gap) shows 105
        // missing.
        selective(5_600, 0x120, 105, 1, "0x0000000000000001"),
        // QP 0x121: 0xFFFFFE, before the wrap.
        selective(6_400, 0x121, 0xFF_FFFE, 1, "0x0000000000000001"),
        // QP 0x120: 108 shows 107 missing too; 105 was asked for already
        // (rtx 106): the mask names 107 alone.
        selective(6_800, 0x120, 105, 3, "0x0000000000000004"),
        // QP 0x121's resend was lost: the ACK of a packet sent after it
        // (at or past its mark) still shows 0xFFFFFE missing, and rule 9
        // asks for it again, through the wrap.
        selective(9_400, 0x121, 0xFF_FFFE, 5, "0x0000000000000001"),
        // QP 0x120: 110, after una moved on to it.
        selective(9_800, 0x120, 110, 1, "0x0000000000000001"),
        // QP 0x120's last four packets, too few for an ACK by count, with
        // nothing after them to carry one by time: the timer.
        timeout(32_800, 0x120, 128, 4),
        // QP 0x122: 150 lost, asked for; its first five resends are lost
        // too, and each of the next four ACKs that shows a packet sent
        // after the last resend asks for it again (rule 9), 16 packets on
        // each time.
        selective(43_600, 0x122, 150, 1, "0x0000000000000001"),
        selective(47_000, 0x122, 150, 17, "0x0000000000000001"),
        selective(50_400, 0x122, 150, 33, "0x0000000000000001"),
        selective(53_800, 0x122, 150, 49, "0x0000000000000001"),
        // The responder's window (150 + 64) filled and it dropped what came
        // past it (beyond): rule 9 again, the span up to nxt, so the
        // request names 150 and every PSN past the mask (214-224).
        selective(57_200, 0x122, 150, 75, "0x0000000000000001"),
        // No progress since 150's loss: the timer goes back from 150.
        timeout(57_400, 0x122, 150, 75),
        // The go-back moved rtx back to 150: the next ACK, from before the
        // go-back's copy of 150 arrived, asks for it again, and for
        // 214-224 past the mask (beyond is still set).
        selective(59_400, 0x122, 150, 75, "0x0000000000000001"),
        // The go-back's copies of 151-214 (held already) come first, and
        // 215 on reach the responder only after the timer, restarted by
        // the progress to 215, ran out again.
        timeout(73_800, 0x122, 215, 15),
    ];
    for rtl_width in [None, Some(64), Some(512)] {
        assert_eq!(retransmit_requests("cn/rc_selective_requester.pcap", rtl_width), expected, "width {rtl_width:?}");
    }
}
