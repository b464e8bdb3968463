//! Priority flow control at the switch (`--pfc`, `SPEC.md` §9.6): per
//! ingress port and priority, the buffer accounting of HPCC's ns-3
//! `SwitchMmu` (a dynamic XOFF threshold on the shared part of the buffer,
//! headroom behind it, XON a resume offset below XOFF), with the headroom
//! computed from the link instead of ns-3's 3 × BDP, and the pause timed by
//! its quanta and refreshed while the queue stays above XON, as 802.1Qbb
//! switches do (ns-3 pauses until a resume instead).

use metaroce_golden::wire::PFC_PRIORITIES;

use super::packet::{Packet, WIRE_OVERHEAD};

/// The pause time of every XOFF frame, in quanta of 512 bit times: the
/// longest a PFC frame can ask (802.1Qbb); the switch refreshes it.
pub const PAUSE_QUANTA: u16 = 0xFFFF;
const QUANTUM_BITS: u64 = 512;
/// XON lies this far below XOFF (ns-3 `SwitchMmu::resume_offset`, 3 KiB).
pub const RESUME_OFFSET_BYTES: u64 = 3 * 1024;
/// XOFF: a queue's shared bytes reach the free shared buffer divided by
/// 2^shift (ns-3 `pfc_a_shift`, 3 in `third.cc` when port and NIC rates are
/// equal: alpha 1/8).
pub const ALPHA_SHIFT: u32 = 3;
/// A PFC frame on the wire: the 60-byte minimum frame and its overhead.
const PFC_FRAME_WIRE_BYTES: u64 = 60 + WIRE_OVERHEAD;

/// The headroom of one ingress port's lossless priority: every byte that can
/// still reach the switch once it decides XOFF (IEEE 802.1Qbb's headroom
/// budget: the PFC frame's wait and flight, the sender's reaction, the
/// bytes in flight back). In wire bytes, which exceed the stored bytes:
/// - the PFC frame waits for the frame on the port's wire to the host (one
///   frame of `max_frame` bytes), then takes its own wire time;
/// - the bytes on the link to the switch when XOFF is decided, and those the
///   host sends while the PFC frame flies: two link delays at line rate;
/// - after the frame reaches the host: the rest of the frame on its wire,
///   and every frame it had released but not yet started, at most one per
///   QP on the priority (a host hands a QP's next packet over only once the
///   previous one starts on the wire, `SPEC.md` §9.1).
pub fn headroom_bytes(link_gbps: u32, link_delay_ns: u64, max_frame: u64, qps: u64) -> u64 {
    // No overflow: the delay is at most 1 ms and the rate 1600 Gb/s (`SimConfig::validate`).
    let flight = (2 * link_delay_ns * u64::from(link_gbps)).div_ceil(8);
    let frame = max_frame + WIRE_OVERHEAD;
    frame + PFC_FRAME_WIRE_BYTES + flight + (1 + qps) * frame
}

/// How long a pause of `quanta` lasts on a link of `gbps`, ps.
pub fn pause_ps(quanta: u16, gbps: u32) -> u64 {
    (u64::from(quanta) * QUANTUM_BITS * 1000).div_ceil(u64::from(gbps))
}

/// A change of a (port, priority)'s pause state, for the world to act on:
/// the switch has queued the frame on the port already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PfcEvent {
    /// XOFF sent to the host on `port`, or sent again (`refresh`); the
    /// pause's `generation` names it for its next refresh.
    Pause { port: usize, priority: usize, generation: u64, refresh: bool },
    /// XON sent: a PFC frame with pause time 0.
    Resume { port: usize, priority: usize },
}

/// Per priority over every port: frames sent, time paused, headroom used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PriorityCounts {
    /// XOFF frames that began a pause, the frames that refreshed one, and
    /// the XON frames.
    pub pause_frames: u64,
    pub refresh_frames: u64,
    pub resume_frames: u64,
    /// Σ over ports of the time from XOFF to XON, ps.
    pub paused_ps: u64,
    /// The most bytes one port's headroom held, and that port's headroom.
    pub peak_headroom: u64,
    pub peak_headroom_of: u64,
}

#[derive(Debug, Clone, Copy, Default)]
struct IngressQueue {
    /// Bytes held in the shared buffer, and in the headroom.
    shared: u64,
    headroom: u64,
    /// Since when XOFF holds (ps), and the pauses begun so far.
    paused_since: Option<u64>,
    generation: u64,
}

pub struct Pfc {
    /// Per port; per priority.
    queues: Vec<[IngressQueue; PFC_PRIORITIES]>,
    /// Per port: the headroom of each lossless priority.
    headroom: Vec<u64>,
    /// The priorities PFC protects (bit p: priority p).
    lossless: u8,
    /// The buffer less every headroom, and what the queues (and the lossy
    /// frames) hold of it.
    shared_limit: u64,
    shared_used: u64,
    pause_ps: u64,
    pub counts: [PriorityCounts; PFC_PRIORITIES],
    events: Vec<PfcEvent>,
}

impl Pfc {
    /// `headroom` per port, for each priority in `lossless`, out of
    /// `buffer_bytes`; pauses last [`PAUSE_QUANTA`] at `link_gbps`.
    pub fn new(buffer_bytes: u64, headroom: Vec<u64>, lossless: u8, link_gbps: u32) -> Result<Self, String> {
        let reserved: u64 = headroom.iter().sum::<u64>() * u64::from(lossless.count_ones());
        if reserved >= buffer_bytes {
            return Err(format!(
                "--pfc: the headroom of {} ports ({reserved} B) does not fit the {buffer_bytes} B buffer",
                headroom.len()
            ));
        }
        Ok(Pfc {
            queues: vec![[IngressQueue::default(); PFC_PRIORITIES]; headroom.len()],
            headroom,
            lossless,
            shared_limit: buffer_bytes - reserved,
            shared_used: 0,
            pause_ps: pause_ps(PAUSE_QUANTA, link_gbps),
            counts: [PriorityCounts::default(); PFC_PRIORITIES],
            events: Vec::new(),
        })
    }

    pub fn is_lossless(&self, priority: usize) -> bool {
        self.lossless >> priority & 1 == 1
    }

    /// When a pause refresh is due: half the pause time after the last frame.
    pub fn refresh_after_ps(&self) -> u64 {
        self.pause_ps / 2
    }

    /// The XOFF threshold: the free shared buffer times alpha (ns-3
    /// `GetPfcThreshold`).
    fn threshold(&self) -> u64 {
        self.shared_limit.saturating_sub(self.shared_used) >> ALPHA_SHIFT
    }

    /// A frame of `len` bytes from `port` on `priority`: whether it fits.
    /// A lossless one goes into the shared buffer below XOFF, else into the
    /// headroom (ns-3 `CheckIngressAdmission` and `UpdateIngressAdmission`
    /// without the per-queue reserve), and XOFF follows if the queue is now
    /// at or above it; any other (CNPs) only into the shared buffer.
    pub fn admit(&mut self, port: usize, priority: usize, len: u64, now: u64) -> bool {
        if !self.is_lossless(priority) {
            let fits = self.shared_used + len <= self.shared_limit;
            self.shared_used += if fits { len } else { 0 };
            return fits;
        }
        let threshold = self.threshold();
        let q = &mut self.queues[port][priority];
        let over = q.shared + len > threshold;
        if over && q.headroom + len > self.headroom[port] {
            return false;
        }
        if over {
            q.headroom += len;
            let counts = &mut self.counts[priority];
            if q.headroom > counts.peak_headroom {
                (counts.peak_headroom, counts.peak_headroom_of) = (q.headroom, self.headroom[port]);
            }
        } else {
            q.shared += len;
            self.shared_used += len;
        }
        let threshold = self.threshold();
        let q = &mut self.queues[port][priority];
        if q.paused_since.is_none() && (q.headroom > 0 || q.shared >= threshold) {
            q.paused_since = Some(now);
            q.generation += 1;
            self.counts[priority].pause_frames += 1;
            self.events.push(PfcEvent::Pause { port, priority, generation: q.generation, refresh: false });
        }
        true
    }

    /// A frame from `port` on `priority` left the buffer: a lossless one
    /// from the headroom first (ns-3 `RemoveFromIngressAdmission`), then
    /// XON once the queue is back a resume offset below XOFF with nothing
    /// in the headroom.
    pub fn release(&mut self, port: usize, priority: usize, len: u64, now: u64) {
        if !self.is_lossless(priority) {
            self.shared_used -= len;
            return;
        }
        let q = &mut self.queues[port][priority];
        let from_headroom = q.headroom.min(len);
        q.headroom -= from_headroom;
        q.shared -= len - from_headroom;
        self.shared_used -= len - from_headroom;
        let threshold = self.threshold();
        let q = &mut self.queues[port][priority];
        let Some(since) = q.paused_since else { return };
        if q.headroom == 0 && (q.shared == 0 || q.shared + RESUME_OFFSET_BYTES <= threshold) {
            q.paused_since = None;
            let counts = &mut self.counts[priority];
            counts.resume_frames += 1;
            counts.paused_ps += now - since;
            self.events.push(PfcEvent::Resume { port, priority });
        }
    }

    /// Whether pause `generation` of `port`'s `priority` still holds.
    pub fn holds(&self, port: usize, priority: usize, generation: u64) -> bool {
        let q = &self.queues[port][priority];
        q.paused_since.is_some() && q.generation == generation
    }

    /// Sends XOFF again if pause `generation` still holds (its refresh is
    /// due: the world schedules it half a pause after the last frame).
    pub fn refresh(&mut self, port: usize, priority: usize, generation: u64) {
        if self.holds(port, priority, generation) {
            self.counts[priority].refresh_frames += 1;
            self.events.push(PfcEvent::Pause { port, priority, generation, refresh: true });
        }
    }

    /// The state changes since the last call.
    pub fn take_events(&mut self) -> Vec<PfcEvent> {
        std::mem::take(&mut self.events)
    }

    /// Closes the pauses still in force at `now` into the counts.
    pub fn finish(&mut self, now: u64) {
        for queues in &mut self.queues {
            for (priority, q) in queues.iter_mut().enumerate() {
                if let Some(since) = q.paused_since.take() {
                    self.counts[priority].paused_ps += now - since;
                }
            }
        }
    }

    /// Whether `port`'s `priority` is paused.
    #[cfg(test)]
    fn paused(&self, port: usize, priority: usize) -> bool {
        self.queues[port][priority].paused_since.is_some()
    }
}

/// The PFC frame the switch sends on `port` for `event`.
pub fn frame(event: PfcEvent, src: [u8; 6]) -> Packet {
    use metaroce_golden::frame::mac_control_frame;
    use metaroce_golden::wire::MacControlRepr;
    let (priority, quanta) = match event {
        PfcEvent::Pause { priority, .. } => (priority, PAUSE_QUANTA),
        PfcEvent::Resume { priority, .. } => (priority, 0),
    };
    let mut pause_times = [0; PFC_PRIORITIES];
    pause_times[priority] = quanta;
    Packet::no_flow(mac_control_frame(src, &MacControlRepr::Pfc { class_enable: 1 << priority, pause_times }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 100G, 1 µs links, 4 KiB frames, one QP: 25,000 B of flight, the
    /// switch's frame, the PFC frame, the host's frame and its queued one.
    #[test]
    fn the_headroom_adds_up_the_flight_and_the_frames_in_the_way() {
        let frame = 4154 + WIRE_OVERHEAD;
        assert_eq!(headroom_bytes(100, 1000, 4154, 1), 25_000 + 3 * frame + 84);
        assert_eq!(headroom_bytes(400, 1000, 4154, 3), 100_000 + 5 * frame + 84);
        // 65,535 quanta of 512 bits: 335.5 µs at 100G, 83.9 µs at 400G.
        assert_eq!(pause_ps(0xFFFF, 100), 335_539_200);
        assert_eq!(pause_ps(0xFFFF, 400), 83_884_800);
    }

    #[test]
    fn xoff_at_the_threshold_headroom_behind_it_xon_below_it() {
        // Shared: 100,000 - 2 x 10,000 = 80,000; XOFF at free / 8.
        let mut pfc = Pfc::new(100_000, vec![10_000, 10_000], 1 << 3, 100).unwrap();
        assert!(!pfc.is_lossless(6) && pfc.is_lossless(3));
        let mut admitted = 0;
        while !pfc.paused(0, 3) {
            assert!(pfc.admit(0, 3, 1000, admitted));
            admitted += 1;
        }
        // The ninth frame (at time 8): 9 x 1000 >= (80,000 - 9,000) / 8 = 8,875.
        assert_eq!(admitted, 9);
        assert_eq!(pfc.take_events(), [PfcEvent::Pause { port: 0, priority: 3, generation: 1, refresh: false }]);
        // Beyond XOFF into the headroom, then refused once it is full.
        let mut headroom = 0;
        while pfc.admit(0, 3, 1000, 9) {
            headroom += 1;
        }
        assert_eq!(headroom, 10);
        assert_eq!((pfc.counts[3].peak_headroom, pfc.counts[3].peak_headroom_of), (10_000, 10_000));
        // A lossy frame (priority 6) takes only shared space: 71,000 are left.
        assert!(pfc.admit(1, 6, 71_000, 9) && !pfc.admit(1, 6, 1, 9));
        pfc.release(1, 6, 71_000, 9);
        // The other port is not paused by this one.
        assert!(!pfc.paused(1, 3));
        // Draining: headroom first, then XON a resume offset below XOFF.
        for i in 0..10 {
            pfc.release(0, 3, 1000, 100 + i);
        }
        assert!(pfc.paused(0, 3));
        pfc.release(0, 3, 1000, 200);
        pfc.release(0, 3, 1000, 300);
        assert!(pfc.paused(0, 3), "7,000 + 3,072 > 9,125");
        pfc.release(0, 3, 1000, 400);
        assert!(!pfc.paused(0, 3), "6,000 + 3,072 <= 9,250");
        assert_eq!(pfc.take_events(), [PfcEvent::Resume { port: 0, priority: 3 }]);
        let counts = PriorityCounts { pause_frames: 1, resume_frames: 1, paused_ps: 400 - 8, ..pfc.counts[3] };
        assert_eq!(pfc.counts[3], counts);
    }

    /// A refresh goes out while its pause holds, and not once an XON ended
    /// it, nor for an older pause after a new one began.
    #[test]
    fn a_pause_is_refreshed_while_it_holds_and_only_that_pause() {
        let mut pfc = Pfc::new(100_000, vec![10_000], 1 << 3, 100).unwrap();
        let mut held = 0;
        while !pfc.paused(0, 3) {
            pfc.admit(0, 3, 1000, 0);
            held += 1;
        }
        pfc.refresh(0, 3, 1);
        assert_eq!(pfc.counts[3].refresh_frames, 1);
        for _ in 0..held {
            pfc.release(0, 3, 1000, 5);
        }
        pfc.refresh(0, 3, 1);
        while !pfc.paused(0, 3) {
            pfc.admit(0, 3, 1000, 6);
        }
        pfc.refresh(0, 3, 1);
        assert!(!pfc.holds(0, 3, 1) && pfc.holds(0, 3, 2));
        assert_eq!((pfc.counts[3].pause_frames, pfc.counts[3].refresh_frames), (2, 1));
        assert_eq!(pfc.refresh_after_ps(), pause_ps(PAUSE_QUANTA, 100) / 2);
        assert!(Pfc::new(20_000, vec![10_000, 10_000], 1 << 3, 100).is_err());
    }

    #[test]
    fn the_frame_pauses_one_priority_for_its_quanta_or_resumes_it() {
        use metaroce_golden::parser::parse_frame;
        use metaroce_golden::ParserConfig;
        for (event, quanta) in [
            (PfcEvent::Pause { port: 1, priority: 3, generation: 1, refresh: false }, 0xFFFF),
            (PfcEvent::Resume { port: 1, priority: 3 }, 0),
        ] {
            let packet = frame(event, [2, 0, 0, 0, 1, 2]);
            assert!(packet.is_mac_control());
            let record = parse_frame(&packet.data, false, &ParserConfig::default());
            assert_eq!(record.pfc_enable, Some(1 << 3));
            let mut expected = [0; PFC_PRIORITIES];
            expected[3] = quanta;
            assert_eq!(record.pfc_quanta, Some(expected));
        }
    }
}
