// Stimulus for cn_equiv_tb.sv (included inside its module): the
// configuration drawn from the seed, and the events, QP contexts and
// output readies, drawn every cycle from the tb's PRNG.

// ---------------------------------------------------------------- configuration
integer    ack_mode_arg, metaroce_arg;
reg [31:0] line_kbps, min_kbps;
reg [39:0] line_bt;
integer    i;

function [39:0] byte_time;        // ceil((8e6 << 20) / max(kbps, 10))
    input [31:0] kbps;
    reg [63:0] num, d;
    begin
        num = 64'd8000000 << 20;
        d = kbps < 10 ? 10 : kbps;
        byte_time = (num + d - 1) / d;
    end
endfunction

// One of a few plausible values, or a random one in range.
function [31:0] pick4;
    input [31:0] a, b, c, d;
    reg [1:0] r;
    begin
        r = rndr(4);
        pick4 = r == 0 ? a : r == 1 ? b : r == 2 ? c : d;
    end
endfunction

task make_cfg;
    reg [31:0] v, line_mbps, t_us;
    begin
        cfg = {CW{1'b0}};
        cfg[`CFG_METAROCE] = metaroce_arg >= 0 ? metaroce_arg : rndr(2);
        line_mbps = pick4(25000, 100000, 400000, 1000 + rndr(400000));
        line_kbps = line_mbps * 1000;
        line_bt = byte_time(line_kbps);
        cfg[`CFG_LINE_RATE_KBPS] = line_kbps;
        cfg[`CFG_LINE_BYTE_TIME] = line_bt;
        cfg[`CFG_CNP_INTERVAL_NS] = pick4(1, 4, 50, 1 + rndr(20)) * 1000;
        cfg[`CFG_CNP_DSCP] = chance(500) ? 48 : rndr(64);
        cfg[`CFG_CNP_PCP] = chance(500) ? 6 : rndr(8);
        min_kbps = pick4(1, 10, 1000, 1 + rndr(line_mbps / 4)) * 1000;
        cfg[`CFG_MIN_RATE_KBPS] = min_kbps;
        cfg[`CFG_MIN_DEC_Q15] = pick4(0, 50, chance(80) ? 100 : 75, rndr(101)) * 32768 / 100;
        cfg[`CFG_G] = 1024 - pick4(1020, 1019, 1000, rndr(1024));
        cfg[`CFG_ALPHA_PERIOD_NS] = pick4(1, 55, 1, 1 + rndr(100)) * 1000;
        t_us = pick4(55, 300, 5, 1 + rndr(500));
        cfg[`CFG_TIME_RESET_NS] = t_us * 1000;
        cfg[`CFG_BYTE_RESET] = pick4(10000000, 32767, 32'hFFFFFFFF, 1000 + rndr(100000));
        cfg[`CFG_THRESHOLD] = chance(50) ? 255 : pick4(1, 5, 0, rndr(12));
        cfg[`CFG_AI_KBPS] = pick4(5, 20, 40, rndr(line_mbps / 100 + 1)) * 1000;
        cfg[`CFG_HAI_KBPS] = pick4(50, 200, 500, rndr(line_mbps / 10 + 1)) * 1000;
        v = chance(500) ? 1023 : rndr(1024);
        cfg[`CFG_INITIAL_ALPHA] = v == 1023 ? 32768 : v * 32768 / 1024;
        cfg[`CFG_FIRST_CNP_KBPS] = chance(700) ? 0 : (1 + rndr(line_mbps)) * 1000;
        cfg[`CFG_CLAMP_TGT] = rndr(2);
        cfg[`CFG_REDUCE_PERIOD_NS] = chance(500) ? 0 : (chance(500) ? (t_us < 4 ? t_us : 4) : rndr(t_us + 1)) * 1000;
        cfg[`CFG_BURST_BYTES] = rndr(65536);
        cfg[`CFG_MIN_GAP_NS] = rndr(1000);
        cfg[`CFG_START_BYTE_TIME] = chance(500) ? line_bt : byte_time((1 + rndr(line_mbps)) * 1000);
        cfg[`CFG_ACK_MODE] = ack_mode_arg >= 0 ? ack_mode_arg : (seed % 5 == 4 ? ACK_MODE_OFF : ACK_MODE_ROCEV2);
        cfg[`CFG_ACK_COALESCE_PKTS] = pick4(64, 1, 4, 1 + rndr(255));
        cfg[`CFG_ACK_DSCP] = chance(500) ? 26 : rndr(64);
        cfg[`CFG_ACK_PCP] = chance(500) ? 3 : rndr(8);
        // From the second stream: the stimulus drawn after stays as it was.
        // retx_timeout mostly short, so that timers run out and scan.
        swap_stream; cfg[`CFG_RETRY_CNT] = pick4(7, 7, 1, rndr(8));
        cfg[`CFG_RETX_TIMEOUT] = pick4(1, 2, 14, rndr(24)); swap_stream;
    end
endtask

// ---------------------------------------------------------------- stimulus state
integer    n_events = 18000;
integer    max_cycles = 4000000;
reg        verbose = 0;

reg [63:0] t_now = 0;                 // the last event time drawn (never decreases)
reg [23:0] hot [0:3];                 // a few hot QPs: same-QP hazards
reg [23:0] exp_psn [0:Q-1];           // the PSN each QP's responder expects (tb's guess)
reg        psn_known [0:Q-1];
// The send side (the requester's input): the oldest unacknowledged PSN
// and the PSN after the newest sent (una and nxt, as the requester keeps
// them) and the PSN the QP sends next (behind nxt after a go-back), the
// tb's guess; no context load sets them.
reg [23:0] tx_una [0:Q-1];
reg [23:0] tx_nxt [0:Q-1];
reg [23:0] tx_cur [0:Q-1];
reg        tx_known [0:Q-1];
integer    init_qp = 0;               // the initial context load sweeps QP 0..Q-1
integer    valid_pct = 80, axis_pct = 90, rate_pct = 90;
integer    retx_pct = 90;
integer    axis_stall = 0, rate_stall = 0, retx_stall = 0, evt_idle = 0;
reg        draining = 0;

function [23:0] pick_qp;
    input dummy;
    integer r;
    begin
        r = rndr(100);
        if (r < 55)      pick_qp = hot[rndr(4)];
        else if (r < 91) pick_qp = rndr(Q);
        else if (r < 96) pick_qp = Q + rndr(3);               // just out of range
        else if (r < 98) pick_qp = 24'hFFFFFF - rndr(2);
        else             pick_qp = rnd(0);
    end
endfunction

function [23:0] pick_psn;           // a starting PSN, often near the wrap
    input dummy;
    begin
        pick_psn = chance(300) ? 24'hFFFFFF - rndr(40) : rnd(0);
    end
endfunction

// All event fields random (payload of an idle input too).
task randomize_evt_fields;
    begin
        s_evt_kind = rnd(0);
        s_evt_time = rnd(0);
        s_evt_qp = rnd(0);
        s_evt_ce = rnd(0);
        s_evt_len = rnd(0);
        s_evt_ipv6 = rnd(0);
        s_evt_vlan_valid = rnd(0);
        s_evt_vlan_id = rnd(0);
        s_evt_eth_dst = rnd(0);
        s_evt_eth_src = rnd(0);
        s_evt_ip_src = {rnd(0), rnd(0)};
        s_evt_ip_dst = {rnd(0), rnd(0)};
        s_evt_udp_sport = rnd(0);
        s_evt_src_qp_valid = rnd(0);
        s_evt_src_qp = rnd(0);
        s_evt_extent_valid = rnd(0);
        s_evt_extent = rnd(0);
        s_evt_psn = rnd(0);
        s_evt_ack_req = rnd(0);
        s_evt_rc_req = rnd(0);
        s_evt_msg_end = rnd(0);
        swap_stream;
        s_evt_syndrome_valid = rnd(0);
        s_evt_syndrome = rnd(0);
        swap_stream;
    end
endtask

// An AETH syndrome: mostly ACK (0x1F) and NAK PSN sequence error (0x60),
// some ACKs of other credit counts, RNR NAKs, other NAKs and reserved
// values (the requester ignores all but ACKs and 0x60).
function [7:0] pick_syndrome;
    input dummy;
    integer r;
    begin
        r = rndr(100);
        if (r < 45)      pick_syndrome = SYNDROME_ACK;
        else if (r < 85) pick_syndrome = SYNDROME_NAK_PSN;
        else             pick_syndrome = pick4(rndr(8'h1F), 8'h20 + rndr(32), 8'h61 + rndr(31), 8'h80 + rndr(128));
    end
endfunction

// A realistic event (fields that do not matter for its kind stay random).
task make_event;
    integer r;
    reg [63:0] gap;
    reg [23:0] q, inflight;
    begin
        randomize_evt_fields;
        r = rndr(100);
        s_evt_kind = r < 45 ? KIND_RX_DATA : r < 70 ? KIND_RX_CNP : r < 97 ? KIND_TX_DATA : 2'd3;
        q = pick_qp(0);
        s_evt_qp = q;
        // Time: often the same tick, mostly small steps, sometimes long
        // quiet gaps (timer catch-up), rarely huge ones.
        r = rndr(1000);
        if (r < 250)      gap = 0;
        else if (r < 850) gap = rndr(300);
        else if (r < 975) gap = rndr(60000);
        else if (r < 995) gap = rndr(64'd2000000000);
        else if (r < 999) gap = rndr(64'd1 << 40);
        else              gap = rndr(64'd1 << 46);
        t_now = t_now + gap;
        s_evt_time = t_now;
        s_evt_ce = chance(400);
        s_evt_len = chance(50) ? rnd(0) : 64 + rndr(4100);
        s_evt_ipv6 = chance(400);
        s_evt_vlan_valid = chance(300);
        s_evt_src_qp_valid = chance(150);
        s_evt_extent_valid = chance(700);
        r = rndr(100);
        s_evt_extent = r < 10 ? 0 : r < 20 ? 16'h8000 + rndr(16'h8000) : 1 + rndr(32767);
        s_evt_rc_req = chance(750);
        s_evt_ack_req = chance(200);
        s_evt_msg_end = chance(300);
        // PSN: mostly in order, some gaps (NAK), some duplicates (re-ACK).
        if (q < Q) begin
            r = rndr(100);
            if (!psn_known[q])  s_evt_psn = pick_psn(0);
            else if (r < 80)    s_evt_psn = exp_psn[q];
            else if (r < 88)    s_evt_psn = exp_psn[q] + 1 + rndr(8);
            else if (r < 96)    s_evt_psn = exp_psn[q] - 1 - rndr(8);
            else if (r < 98)    s_evt_psn = exp_psn[q] + 24'h800000 - rndr(2);
            else                s_evt_psn = rnd(0);
        end
        // The requester's inputs, from its own stream: a received data
        // event that is no RC request is mostly an ACK/NAK frame (never
        // with rc_req, roce_cn.v asserts it on every kind; elsewhere
        // syndrome_valid is ignored, so random); a sent one gets the send
        // side's PSN (the draw above stays, for the first stream's sake).
        swap_stream;
        if (s_evt_kind == KIND_RX_DATA) begin
            s_evt_syndrome_valid = !s_evt_rc_req && chance(850);
        end else begin
            s_evt_syndrome_valid = s_evt_syndrome_valid && !s_evt_rc_req;
        end
        if (s_evt_kind == KIND_TX_DATA && q < Q) begin
            // A sent RC request: mostly the QP's next PSN, some going
            // back (retransmissions), a few skipping ahead, at the 2^23
            // edge of "beyond nxt", or anywhere.
            r = rndr(100);
            if (!tx_known[q])   s_evt_psn = pick_psn(0);
            else if (r < 80)    s_evt_psn = tx_cur[q];
            else if (r < 92)    s_evt_psn = tx_cur[q] - 1 - rndr(24);
            else if (r < 96)    s_evt_psn = tx_cur[q] + 1 + rndr(4);
            else if (r < 98)    s_evt_psn = tx_nxt[q] + 24'h7FFFFF - rndr(2);
            else                s_evt_psn = rnd(0);
        end else if (s_evt_kind == KIND_RX_DATA && s_evt_syndrome_valid) begin
            // An ACK/NAK frame for a local QP: its PSN mostly among the
            // last 24 sent, most of those still in flight (else ACKs soon
            // leave nothing in flight for a NAK to ask again), some not
            // sent yet, long ACKed, or anywhere.
            s_evt_syndrome = pick_syndrome(0);
            r = rndr(100);
            if (q < Q) inflight = tx_nxt[q] - tx_una[q];
            if (q >= Q || !tx_known[q]) s_evt_psn = pick_psn(0);
            else if (r < 70)    s_evt_psn = tx_nxt[q] - 1 - rndr(inflight == 0 ? 24 : inflight < 24 ? inflight : 24);
            else if (r < 85)    s_evt_psn = tx_nxt[q] - 1 - rndr(24);
            else if (r < 92)    s_evt_psn = tx_nxt[q] + rndr(3);
            else if (r < 97)    s_evt_psn = tx_nxt[q] - 25 - rndr(1000);
            else                s_evt_psn = rnd(0);
        end
        swap_stream;
    end
endtask

// What the responder does with an accepted in-range RC request, and the
// requester with a sent one and a NAK (approximately).
task note_event_taken;
    reg [23:0] q, d, k;               // mod 2^24
    begin
        q = s_evt_qp;
        if (s_evt_kind == KIND_RX_DATA && s_evt_rc_req && q < Q) begin
            if (!psn_known[q]) begin
                psn_known[q] = 1;
                exp_psn[q] = s_evt_psn + 1;
            end else if (s_evt_psn == exp_psn[q]) begin
                exp_psn[q] = exp_psn[q] + 1;
            end
        end
        // The requester's rules (SPEC.md §6.11). A send beyond nxt starts
        // or moves it, and the sender goes on after it; one that is not
        // (a retransmission) is a single packet, unless the sender is
        // going back (tx_cur behind nxt) and it is tx_cur's.
        if (s_evt_kind == KIND_TX_DATA && s_evt_rc_req && q < Q) begin
            d = s_evt_psn + 1 - tx_nxt[q];
            if (!tx_known[q]) begin
                tx_known[q] = 1;
                tx_una[q] = s_evt_psn;
                tx_nxt[q] = s_evt_psn + 1;
                tx_cur[q] = s_evt_psn + 1;
            end else if (d != 0 && !d[23]) begin
                tx_nxt[q] = s_evt_psn + 1;
                tx_cur[q] = s_evt_psn + 1;
            end else begin
                n_evt_tx_back = n_evt_tx_back + 1;
                if (s_evt_psn == tx_cur[q]) tx_cur[q] = s_evt_psn + 1;
            end
        end
        // An ACK acknowledges its PSN, a NAK 0x60 what is before it; after
        // a NAK the sender goes back N now and then (the host re-posting
        // on the retransmit request, a little early).
        if (s_evt_kind == KIND_RX_DATA && s_evt_syndrome_valid && q < Q && tx_known[q]) begin
            k = s_evt_psn - tx_una[q];
            if (k < tx_nxt[q] - tx_una[q]) begin
                if (s_evt_syndrome[7:5] == 3'd0) tx_una[q] = s_evt_psn + 1;
                if (s_evt_syndrome == SYNDROME_NAK_PSN) begin
                    tx_una[q] = s_evt_psn;
                    swap_stream;
                    if (chance(300)) tx_cur[q] = s_evt_psn;
                    swap_stream;
                end
            end
        end
    end
endtask

task randomize_qpctx_fields;
    begin
        s_qpctx_local = rnd(0);
        s_qpctx_remote = rnd(0);
        s_qpctx_psn_valid = rnd(0);
        s_qpctx_psn = rnd(0);
    end
endtask

task make_qpctx;
    input [23:0] q;
    begin
        s_qpctx_local = q;
        s_qpctx_remote = rnd(0);
        s_qpctx_psn_valid = chance(600);
        s_qpctx_psn = pick_psn(0);
    end
endtask

task note_qpctx_taken;
    reg [23:0] q;
    begin
        q = s_qpctx_local;
        if (q < Q) begin
            psn_known[q] = s_qpctx_psn_valid;
            exp_psn[q] = s_qpctx_psn;
        end
    end
endtask

// Output ready: random at a per-phase rate, with stalls, some of them long.
task next_ready;
    inout integer stall;
    inout integer pct;
    output reg    rdy;
    begin
        if (chance(3)) pct = pick4(100, 95, 70, 20);
        if (stall > 0) begin
            stall = stall - 1;
            rdy = 1'b0;
        end else if (!draining && chance(1)) begin
            stall = chance(100) ? rndr(4000) : rndr(150);
            rdy = 1'b0;
        end else begin
            rdy = draining ? chance(800) : rndr(100) < pct;
        end
    end
endtask

