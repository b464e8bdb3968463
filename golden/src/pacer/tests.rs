//! The golden pacer's unit tests (`super`: golden/src/pacer.rs).

use super::*;
use crate::cc_params::CcParams;

fn regs(line_mbps: u32, burst: u32) -> CcRegisters {
    let mut p = CcParams { line_rate_mbps: line_mbps, pacer_burst_bytes: burst, ..CcParams::default() };
    p.validate().unwrap();
    p.pacer_start_rate = 0;
    p.registers().unwrap()
}

fn send(time: u64, qp: u32, len: u32) -> PacerCommand {
    PacerCommand { time, qp, rate_kbps: None, send_len: Some(len), pause: None }
}

fn rate(time: u64, qp: u32, kbps: u32) -> PacerCommand {
    PacerCommand { time, qp, rate_kbps: Some(kbps), send_len: None, pause: None }
}

#[test]
fn byte_times() {
    // 100 Gb/s: 0.08 ns per byte, rounded up.
    assert_eq!(byte_time(100_000_000), (8u64 << 20).div_ceil(100));
    assert_eq!(byte_time(0), byte_time(MIN_PACED_KBPS));
    assert!(byte_time(MIN_PACED_KBPS) < 1 << 40);
}

/// QP 3 at 10 Gb/s with `packets` packets of 1000 bytes handed over at 0.
fn backlog(packets: usize) -> (Pacer, Vec<Release>) {
    let mut p = Pacer::new(PacerGeometry::default(), &regs(100_000, 0));
    let mut out = Vec::new();
    // 10 Gb/s: 1000 bytes every 800 ns.
    p.command(&rate(0, 3, 10_000_000), &mut out);
    for _ in 0..packets {
        p.command(&send(0, 3, 1000), &mut out);
    }
    (p, out)
}

#[test]
fn a_backlog_leaves_at_the_rate() {
    let (mut p, mut out) = backlog(5);
    p.flush(&mut out);
    // The byte time is rounded up (800.0002 ns per packet): ticks round up.
    let times: Vec<u64> = out.iter().map(|r| r.time).collect();
    assert_eq!(times, [0, 801, 1601, 2401, 3201]);
}

#[test]
fn the_burst_allowance_lets_a_qp_run_ahead() {
    let r = regs(100_000, 2000);
    let mut p = Pacer::new(PacerGeometry::default(), &r);
    let mut out = Vec::new();
    p.command(&rate(0, 0, 10_000_000), &mut out);
    for _ in 0..4 {
        p.command(&send(0, 0, 1000), &mut out);
    }
    p.flush(&mut out);
    // Three back to back at line rate (80 ns per 1000 bytes): 2000 bytes
    // ahead of the rate plus the one that starts it; then paced.
    let times: Vec<u64> = out.iter().map(|r| r.time).collect();
    assert_eq!(times, [0, 81, 161, 801]);
}

#[test]
fn a_full_pacer_refuses() {
    let r = regs(100_000, 0);
    let geometry = PacerGeometry { desc_count: 1, ..PacerGeometry::default() };
    let mut p = Pacer::new(geometry, &r);
    let mut out = Vec::new();
    // 1 Gb/s: the second packet waits 512 ns, the third finds no room.
    p.command(&rate(0, 1, 1_000_000), &mut out);
    for _ in 0..3 {
        p.command(&send(0, 1, 64), &mut out);
    }
    let dropped = Release { time: 0, qp: 1, len: 64, dropped: true };
    assert_eq!(out, [Release { dropped: false, ..dropped }, dropped]);
    p.flush(&mut out);
    assert_eq!(out.len(), 3);
    assert_eq!(out[2].time, 512);
}

#[test]
fn a_slow_qp_parks_beyond_the_horizon() {
    let r = regs(100_000, 0);
    let mut p = Pacer::new(PacerGeometry::default(), &r);
    let mut out = Vec::new();
    p.command(&rate(0, 0, 1000), &mut out);
    p.command(&send(0, 0, 100), &mut out);
    p.command(&send(0, 0, 100), &mut out);
    p.flush(&mut out);
    // 100 bytes at 1 Mb/s: 800 µs, beyond level 0's 16 µs horizon.
    assert_eq!(out[1].time, 800_000);
    // 10 kb/s from 900 µs: the last packet's debt is re-priced, 80 ms
    // after it (beyond level 1's 4.2 ms horizon: in level 2), and so
    // is the next one's.
    p.command(&rate(900_000, 0, 10), &mut out);
    p.command(&send(900_000, 0, 100), &mut out);
    p.command(&send(900_000, 0, 100), &mut out);
    p.flush(&mut out);
    assert_eq!(out[2].time - out[1].time, 80_000_000);
    assert_eq!(out[3].time - out[2].time, 80_000_000);
}

#[test]
fn a_later_packet_never_goes_ahead_of_one_waiting_to_cascade() {
    // 10 Gb/s (0.8 ns a byte), a 64-byte burst allowance (51.2 ns).
    // The first packet puts the QP 20024 ns ahead; the second (64
    // bytes, eligible 19972.8 ns: level-0 slot 312) goes into level 1
    // (beyond level 0's horizon from slot 0). At 6400 ns (slot 100) the
    // third (65 bytes, eligible 20024 ns: slot 312 too) is within 256
    // slots of the pointer, but in the next level-1 slot: it must wait
    // there behind the second, not in level 0 ahead of it.
    let mut p = Pacer::new(PacerGeometry::default(), &regs(100_000, 64));
    let mut out = Vec::new();
    p.command(&rate(0, 7, 10_000_000), &mut out);
    for (time, len) in [(0, 25_030), (0, 64), (6400, 65), (6400, 66)] {
        p.command(&send(time, 7, len), &mut out);
    }
    p.flush(&mut out);
    let lens: Vec<u32> = out.iter().map(|r| r.len).collect();
    assert_eq!(lens, [25_030, 64, 65, 66]);
}

/// QP 5 at 10 Mb/s: a 4096-byte packet at 0 (it leaves at once), the
/// next one handed over at 1 ns and waiting for the first's debt,
/// 3.2768 ms; then `change` at 100 µs.
fn waiting_behind_a_slow_packet(change: PacerCommand) -> Vec<Release> {
    let mut p = Pacer::new(PacerGeometry::default(), &regs(100_000, 0));
    let mut out = Vec::new();
    p.command(&rate(0, 5, 10_000), &mut out);
    p.command(&send(0, 5, 4096), &mut out);
    p.command(&send(1, 5, 1000), &mut out);
    p.command(&change, &mut out);
    p.flush(&mut out);
    out
}

#[test]
fn a_rate_rise_re_times_the_waiting_packet() {
    let before = waiting_behind_a_slow_packet(send(100_000, 9, 64));
    assert_eq!(before.iter().find(|r| r.qp == 5 && r.len == 1000).unwrap().time, 3_276_800);
    // At 100 Gb/s the first packet's debt is 327.68 ns, long paid: the
    // waiting packet leaves at the change (within its slot), and once.
    let out = waiting_behind_a_slow_packet(rate(100_000, 5, 100_000_000));
    let lens: Vec<(u64, u32)> = out.iter().map(|r| (r.time, r.len)).collect();
    assert_eq!(lens, [(0, 4096), (100_000, 1000)]);
}

#[test]
fn a_rate_cut_leaves_the_waiting_packet_at_its_time_and_prices_the_next() {
    // 1 Mb/s: the waiting packet keeps 3.2768 ms; the next one pays its
    // 1000 bytes at the new rate, 8 ms.
    let mut p = Pacer::new(PacerGeometry::default(), &regs(100_000, 0));
    let mut out = Vec::new();
    for cmd in [rate(0, 5, 10_000), send(0, 5, 4096), send(1, 5, 1000), rate(100_000, 5, 1000), send(100_000, 5, 64)] {
        p.command(&cmd, &mut out);
    }
    p.flush(&mut out);
    assert_eq!(out.iter().map(|r| r.time).collect::<Vec<_>>(), [0, 3_276_800, 11_276_800]);
}

#[test]
fn only_the_newest_packet_is_re_timed_and_never_ahead_of_the_one_before() {
    let mut p = Pacer::new(PacerGeometry::default(), &regs(100_000, 0));
    let mut out = Vec::new();
    p.command(&rate(0, 5, 10_000), &mut out);
    for len in [4096, 1000, 500] {
        p.command(&send(0, 5, len), &mut out);
    }
    // 1000 bytes wait 3.2768 ms, 500 bytes 4.0768 ms. At 100 Gb/s the
    // newest owes only the 1000 bytes' 80 ns (80.0009 with the byte time
    // rounded up) after the time the 1000 bytes keep: 3.2768 ms.
    p.command(&rate(100_000, 5, 100_000_000), &mut out);
    p.flush(&mut out);
    let lens: Vec<(u64, u32)> = out.iter().map(|r| (r.time, r.len)).collect();
    assert_eq!(lens, [(0, 4096), (3_276_800, 1000), (3_276_881, 500)]);
    assert_eq!((p.held, p.live.len()), (0, 0));
}

#[test]
fn with_no_descriptor_free_a_waiting_packet_keeps_its_time() {
    let geometry = PacerGeometry { desc_count: 1, ..PacerGeometry::default() };
    let mut p = Pacer::new(geometry, &regs(100_000, 0));
    let mut out = Vec::new();
    p.command(&rate(0, 5, 10_000), &mut out);
    p.command(&send(0, 5, 4096), &mut out);
    p.command(&send(1, 5, 1000), &mut out);
    p.command(&rate(100_000, 5, 100_000_000), &mut out);
    p.flush(&mut out);
    assert_eq!(out.iter().map(|r| r.time).collect::<Vec<_>>(), [0, 3_276_800]);
}

#[test]
fn advancing_time_releases_what_is_due_and_names_the_next_slot() {
    assert_eq!(Pacer::new(PacerGeometry::default(), &regs(100_000, 0)).next_busy_tick(), None);
    let (mut p, mut out) = backlog(3);
    // Eligible at 0, 800.0002 and 1600.0004 ns: slots 0, 12 and 25 of 64
    // ns; slot 0 was served, and its packet left, before the second packet
    // was taken. A packet served at its slot's start leaves once time has
    // reached its tick (801, 1601): the egress's wake-ups.
    assert_eq!(out.len(), 1);
    let mut wakes = Vec::new();
    while let Some(tick) = p.next_busy_tick() {
        wakes.push(tick);
        p.advance(tick, &mut out);
    }
    assert_eq!(wakes, [768, 801, 1600, 1601]);
    // The same releases as a flush, each found by its slot's start.
    let (mut flushed, mut all) = backlog(3);
    flushed.flush(&mut all);
    assert_eq!(out, all);
    // A command with neither rate nor packet only moves time on.
    let before = p.qps[3];
    p.command(&PacerCommand { time: 5000, qp: 3, rate_kbps: None, send_len: None, pause: None }, &mut out);
    assert_eq!((p.qps[3], p.watermark), (before, 5000));
}

fn pfc(time: u64, enable: u8, quanta: u16) -> PacerCommand {
    PacerCommand::from_pause(time, PauseCommand { enable, quanta: [quanta; 8] })
}

/// The pause a PFC frame of `quanta` at `time` asks for, in Q44.20 ns at
/// the line rate of `r`.
fn pause_end(r: &CcRegisters, time: u64, quanta: u16) -> u64 {
    (time << TIME_FRAC_BITS) + u64::from(quanta) * QUANTUM_BYTES * r.line_byte_time
}

/// QP 1 on priority 3 and QP 2 on priority 0, each at 10 Gb/s with
/// `packets` packets of 1000 bytes handed over at 0 (one every 800 ns).
fn two_priorities(r: &CcRegisters, packets: usize) -> (Pacer, Vec<Release>) {
    let mut p = Pacer::new(PacerGeometry::default(), r);
    assert!(p.set_priority(1, 3) && !p.set_priority(1, 8) && !p.set_priority(5000, 0));
    let mut out = Vec::new();
    for qp in [1, 2] {
        p.command(&rate(0, qp, 10_000_000), &mut out);
    }
    for _ in 0..packets {
        for qp in [1, 2] {
            p.command(&send(0, qp, 1000), &mut out);
        }
    }
    (p, out)
}

#[test]
fn a_paused_priority_waits_while_the_others_flow() {
    let r = regs(100_000, 0);
    let (mut p, mut out) = two_priorities(&r, 10);
    // Priority 3 paused at 2000 ns for 0xFFFF quanta (5.2 ms at 100 Gb/s).
    p.command(&pfc(2000, 1 << 3, 0xFFFF), &mut out);
    p.command(&rate(4000, 9, 10_000_000), &mut out);
    let end = ceil_ns(pause_end(&r, 2000, 0xFFFF));
    p.flush(&mut out);
    let of = |qp| out.iter().filter(|r| r.qp == qp).map(|r| r.time).collect::<Vec<_>>();
    let (paused, other) = (of(1), of(2));
    assert_eq!((paused.len(), other.len()), (10, 10));
    assert!(out.iter().all(|r| !r.dropped));
    // QP 2 keeps its schedule: one packet every 800 ns.
    assert_eq!(other[9], 7201);
    // QP 1: its three packets due by 2000 ns left; the rest waited for the
    // pause's end and then went at line rate (80 ns per 1000 bytes), in
    // order.
    assert_eq!(&paused[..3], [0, 801, 1601]);
    assert!(paused.iter().all(|&t| t <= 2000 || t >= end), "{paused:?}, end {end}");
    assert_eq!(paused[3], end);
    assert!(paused.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn a_pause_time_of_zero_resumes_at_once() {
    let r = regs(100_000, 0);
    let (mut p, mut out) = two_priorities(&r, 4);
    p.command(&pfc(1000, 1 << 3, 0xFFFF), &mut out);
    p.command(&pfc(5000, 1 << 3, 0), &mut out);
    p.flush(&mut out);
    let paused: Vec<u64> = out.iter().filter(|r| r.qp == 1).map(|r| r.time).collect();
    // Due at 1600 and 2400 ns, held, both out at 5000 (the second behind
    // the first on the link); then at 2400 + 800 ns steps as before.
    assert_eq!(paused, [0, 801, 5000, 5081]);
}

#[test]
fn a_pause_that_starts_inside_a_slot_holds_the_packet_served_before_it() {
    let r = regs(100_000, 0);
    let (mut p, mut out) = backlog(2);
    // The second packet is eligible at 800.0002 ns, in the slot of
    // 768-832 ns: a command at 770 serves that slot, and the PFC frame at
    // 790 ns comes before the packet's time.
    p.command(&PacerCommand { time: 770, qp: 3, rate_kbps: None, send_len: None, pause: None }, &mut out);
    assert_eq!(out.len(), 1);
    p.command(&pfc(790, 1, 10), &mut out);
    p.flush(&mut out);
    assert_eq!(out[1].time, ceil_ns(pause_end(&r, 790, 10)));
}

#[test]
fn a_refresh_restarts_the_timer_and_a_pause_frame_stops_every_priority() {
    let r = regs(100_000, 0);
    let (mut p, mut out) = two_priorities(&r, 3);
    // 802.3x PAUSE (every priority) at 100 ns, refreshed at 300 ns.
    p.command(&PacerCommand::from_pause(100, PauseCommand { enable: 0xFF, quanta: [20; 8] }), &mut out);
    p.command(&pfc(300, 0xFF, 20), &mut out);
    p.flush(&mut out);
    let end = ceil_ns(pause_end(&r, 300, 20));
    assert!(end > ceil_ns(pause_end(&r, 100, 20)));
    // Everything due in (100, end) waits for the refreshed end.
    assert!(out.iter().all(|r| r.time <= 100 || r.time >= end), "{out:?}");
    assert_eq!(out.len(), 6);
}

#[test]
fn pause_commands_from_parsed_frames() {
    use crate::frame::mac_control_frame;
    use crate::parser::{parse_frame, ParserConfig};
    use crate::wire::MacControlRepr;
    let parse = |repr| parse_frame(&mac_control_frame([2, 0, 0, 0, 0, 1], &repr), false, &ParserConfig::default());
    let pfc = parse(MacControlRepr::Pfc { class_enable: 0x0121, pause_times: [1, 2, 3, 4, 5, 6, 7, 8] });
    assert_eq!(PauseCommand::from_record(&pfc), Some(PauseCommand { enable: 0x21, quanta: [1, 2, 3, 4, 5, 6, 7, 8] }));
    let pause = parse(MacControlRepr::Pause { pause_time: 9 });
    assert_eq!(PauseCommand::from_record(&pause), Some(PauseCommand { enable: 0xFF, quanta: [9; 8] }));
    assert_eq!(PauseCommand::from_record(&parse(MacControlRepr::Other { opcode: 2 })), None);
}
