// Cycle-by-cycle equivalence bench (ci/rtl-equiv.sh builds and runs it):
// roce_cn_orig (a git revision's RTL, every module renamed *_orig) against
// roce_cn (the working tree's). Both get the same seeded-random stimuli on
// every input every cycle (cn_equiv_stim.svh); every output of the two is
// compared with !== every cycle.
//
// Parameters: W (DATA_WIDTH), Q (QP_COUNT): iverilog -P cn_equiv_tb.W=512 ...
// Plusargs:
//   +seed=N          stimulus seed (default 1)
//   +events=N        events to accept before draining (default 18000)
//   +max_cycles=N    give up (fail) after N cycles (default 4000000)
//   +ack_mode=N      force cfg ack_mode (default: rocev2 unless seed%5==4)
//   +metaroce=N      force cfg mode (default: from the seed)
//   +lenient         compare payloads only while their valid is high
//                    (default: every output bit every cycle)
//   +vcd +vcd_from=C dump waves from cycle C (default 0) to cn_equiv.vcd
//   +verbose         print the cfg and phase changes
//   +assert_from=C   RTL assertion failures before cycle C only counted
//                    (default 2*Q+1000; see rtl_assertion below)
//   +cfg_only        print the configuration and stop
`timescale 1ns / 1ps
`default_nettype none

`include "metaroce_cfg.vh"

module cn_equiv_tb;

// The event kinds, rate triggers and CNP opcode shared with the golden model.
`include "metaroce_defs.vh"

parameter W = 64;
parameter Q = 1024;
localparam K = W / 8;
localparam CW = `CFG_WIDTH;

// ---------------------------------------------------------------- PRNG
// xorshift64*, our own so the stream depends on the seed alone.
reg [63:0] rs;
function [63:0] rnd;
    input dummy;
    begin
        rs = rs ^ (rs >> 12);
        rs = rs ^ (rs << 25);
        rs = rs ^ (rs >> 27);
        rnd = rs * 64'h2545F4914F6CDD1D;
    end
endfunction
// A second stream for the requester's inputs (s_evt_syndrome*, the send
// side's PSNs, m_retx_ready), drawn between two swap_stream calls: a seed
// draws for every other input what it drew before the requester (its
// runs stay comparable; rtl_equiv.rs's planted fault still shows first on
// m_axis), until the requester holds an event back.
reg [63:0] rs2;
task swap_stream;
    reg [63:0] t;
    begin
        t = rs; rs = rs2; rs2 = t;
    end
endtask
// 0 .. n-1 (n > 0)
function [63:0] rndr;
    input [63:0] n;
    begin
        rndr = rnd(0) % n;
    end
endfunction
// true with probability p/1000
function chance;
    input integer p;
    begin
        chance = rndr(1000) < p;
    end
endfunction

// ---------------------------------------------------------------- DUT I/O
reg clk = 1'b0;
reg rst = 1'b1;
always #5 clk = ~clk;

reg  [CW-1:0]   cfg;

reg             s_qpctx_valid = 1'b0;
reg  [23:0]     s_qpctx_local = 0;
reg  [23:0]     s_qpctx_remote = 0;
reg             s_qpctx_psn_valid = 0;
reg  [23:0]     s_qpctx_psn = 0;

reg             s_evt_valid = 1'b0;
reg  [1:0]      s_evt_kind = 0;
reg  [63:0]     s_evt_time = 0;
reg  [23:0]     s_evt_qp = 0;
reg             s_evt_ce = 0;
reg  [16:0]     s_evt_len = 0;
reg             s_evt_ipv6 = 0;
reg             s_evt_vlan_valid = 0;
reg  [11:0]     s_evt_vlan_id = 0;
reg  [47:0]     s_evt_eth_dst = 0;
reg  [47:0]     s_evt_eth_src = 0;
reg  [127:0]    s_evt_ip_src = 0;
reg  [127:0]    s_evt_ip_dst = 0;
reg  [15:0]     s_evt_udp_sport = 0;
reg             s_evt_src_qp_valid = 0;
reg  [23:0]     s_evt_src_qp = 0;
reg             s_evt_extent_valid = 0;
reg  [15:0]     s_evt_extent = 0;
reg  [23:0]     s_evt_psn = 0;
reg             s_evt_ack_req = 0;
reg             s_evt_rc_req = 0;
reg             s_evt_msg_end = 0;
reg             s_evt_syndrome_valid = 0;
reg  [7:0]      s_evt_syndrome = 0;

reg             m_axis_tready = 1'b0;
reg             m_rate_ready = 1'b0;
reg             m_retx_ready = 1'b0;

// Outputs: o_* of roce_cn_orig, n_* of roce_cn.
`define CN_OUTPUTS(p) \
wire          p``s_qpctx_ready; \
wire          p``s_evt_ready; \
wire [W-1:0]  p``m_axis_tdata; \
wire [K-1:0]  p``m_axis_tkeep; \
wire          p``m_axis_tvalid; \
wire          p``m_axis_tlast; \
wire [63:0]   p``m_axis_tuser; \
wire          p``m_rate_valid; \
wire [63:0]   p``m_rate_time; \
wire [23:0]   p``m_rate_qp; \
wire [31:0]   p``m_rate_rate; \
wire [31:0]   p``m_rate_target; \
wire [15:0]   p``m_rate_alpha; \
wire [1:0]    p``m_rate_stage; \
wire [1:0]    p``m_rate_trigger; \
wire          p``m_rate_sent; \
wire [16:0]   p``m_rate_len; \
wire          p``m_retx_valid; \
wire [63:0]   p``m_retx_time; \
wire [23:0]   p``m_retx_qp; \
wire [23:0]   p``m_retx_psn; \
wire [23:0]   p``m_retx_count; \
wire [1:0]    p``m_retx_cause; \
wire          p``busy;

`CN_OUTPUTS(o_)
`CN_OUTPUTS(n_)

`define CN_PORTS(p) \
    .clk(clk), .rst(rst), .cfg(cfg), \
    .s_qpctx_valid(s_qpctx_valid), .s_qpctx_ready(p``s_qpctx_ready), \
    .s_qpctx_local(s_qpctx_local), .s_qpctx_remote(s_qpctx_remote), \
    .s_qpctx_psn_valid(s_qpctx_psn_valid), .s_qpctx_psn(s_qpctx_psn), \
    .s_evt_valid(s_evt_valid), .s_evt_ready(p``s_evt_ready), .s_evt_kind(s_evt_kind), \
    .s_evt_time(s_evt_time), .s_evt_qp(s_evt_qp), .s_evt_ce(s_evt_ce), .s_evt_len(s_evt_len), \
    .s_evt_ipv6(s_evt_ipv6), .s_evt_vlan_valid(s_evt_vlan_valid), .s_evt_vlan_id(s_evt_vlan_id), \
    .s_evt_eth_dst(s_evt_eth_dst), .s_evt_eth_src(s_evt_eth_src), \
    .s_evt_ip_src(s_evt_ip_src), .s_evt_ip_dst(s_evt_ip_dst), .s_evt_udp_sport(s_evt_udp_sport), \
    .s_evt_src_qp_valid(s_evt_src_qp_valid), .s_evt_src_qp(s_evt_src_qp), \
    .s_evt_extent_valid(s_evt_extent_valid), .s_evt_extent(s_evt_extent), \
    .s_evt_psn(s_evt_psn), .s_evt_ack_req(s_evt_ack_req), .s_evt_rc_req(s_evt_rc_req), \
    .s_evt_msg_end(s_evt_msg_end), .s_evt_syndrome_valid(s_evt_syndrome_valid), .s_evt_syndrome(s_evt_syndrome), \
    .m_axis_tdata(p``m_axis_tdata), .m_axis_tkeep(p``m_axis_tkeep), .m_axis_tvalid(p``m_axis_tvalid), \
    .m_axis_tready(m_axis_tready), .m_axis_tlast(p``m_axis_tlast), .m_axis_tuser(p``m_axis_tuser), \
    .m_rate_valid(p``m_rate_valid), .m_rate_ready(m_rate_ready), .m_rate_time(p``m_rate_time), \
    .m_rate_qp(p``m_rate_qp), .m_rate_rate(p``m_rate_rate), .m_rate_target(p``m_rate_target), \
    .m_rate_alpha(p``m_rate_alpha), .m_rate_stage(p``m_rate_stage), .m_rate_trigger(p``m_rate_trigger), \
    .m_rate_sent(p``m_rate_sent), .m_rate_len(p``m_rate_len), \
    .m_retx_valid(p``m_retx_valid), .m_retx_ready(m_retx_ready), .m_retx_time(p``m_retx_time), \
    .m_retx_qp(p``m_retx_qp), .m_retx_psn(p``m_retx_psn), .m_retx_count(p``m_retx_count), \
    .m_retx_cause(p``m_retx_cause), .busy(p``busy)

roce_cn_orig #(.DATA_WIDTH(W), .KEEP_WIDTH(K), .QP_COUNT(Q)) orig_inst (`CN_PORTS(o_));
roce_cn      #(.DATA_WIDTH(W), .KEEP_WIDTH(K), .QP_COUNT(Q)) new_inst  (`CN_PORTS(n_));

// ---------------------------------------------------------------- counters
integer n_evt = 0, n_evt_kind [0:3], n_evt_rc = 0, n_evt_ce = 0, n_evt_oor = 0;
integer n_evt_syn = 0, n_evt_syn_ack = 0, n_evt_syn_nak = 0, n_evt_tx_rc = 0, n_evt_tx_back = 0;
integer n_qpctx = 0;
integer n_beats = 0, n_frames = 0, n_cnp = 0, n_ack = 0, n_nak = 0, n_other = 0;
integer n_rate = 0, n_rate_trig [0:3], n_rate_sent = 0;
integer n_held_kind [0:3], n_axis_nr = 0, n_rate_nr = 0, n_retx_nr = 0;
integer n_retx = 0, n_retx_one = 0, n_retx_many = 0, n_retx_exhausted = 0, n_retx_timeout = 0;
integer n_evt_stall = 0, n_qpctx_stall = 0, n_xpay = 0;
integer max_gap_log2 = 0;
integer n_busy_hi = 0;
reg [63:0] seed;

// ---------------------------------------------------------------- comparison
integer cycle = 0;          // rising edges since reset was released
reg     lenient = 0;
reg     in_reset = 1;

// Reports the output if it differs (the cycle's header before the first),
// counting the differences in ndiff.
integer ndiff;
task automatic cmp(input string name, input [1023:0] a, input [1023:0] b, input integer width);
    begin
        if (a !== b) begin
            if (ndiff == 0)
                $display("EQUIV MISMATCH at cycle %0d (time %0t ns)%0s:", cycle, $time,
                         in_reset ? " [in reset]" : "");
            $display("  output %0s (%0d bits): orig=%0h", name, width, a);
            $display("  output %0s (%0d bits):  new=%0h", name, width, b);
            ndiff = ndiff + 1;
        end
    end
endtask

// The payload of a stream, masked when +lenient and its valid is low.
function [1023:0] pl;
    input [1023:0] v;
    input valid_o;
    input valid_n;
    begin
        pl = (lenient && valid_o === 1'b0 && valid_n === 1'b0) ? 1024'd0 : v;
    end
endfunction

task automatic compare_all;
    reg ax_o, ax_n, rt_o, rt_n, rx_o, rx_n;
    begin
        ndiff = 0;
        ax_o = o_m_axis_tvalid; ax_n = n_m_axis_tvalid;
        rt_o = o_m_rate_valid;  rt_n = n_m_rate_valid;
        rx_o = o_m_retx_valid;  rx_n = n_m_retx_valid;
        cmp("s_qpctx_ready",  o_s_qpctx_ready,  n_s_qpctx_ready, 1);
        cmp("s_evt_ready",    o_s_evt_ready,    n_s_evt_ready, 1);
        cmp("busy",           o_busy,           n_busy, 1);
        cmp("m_axis_tvalid",  o_m_axis_tvalid,  n_m_axis_tvalid, 1);
        cmp("m_axis_tdata",   pl(o_m_axis_tdata, ax_o, ax_n), pl(n_m_axis_tdata, ax_o, ax_n), W);
        cmp("m_axis_tkeep",   pl(o_m_axis_tkeep, ax_o, ax_n), pl(n_m_axis_tkeep, ax_o, ax_n), K);
        cmp("m_axis_tlast",   pl(o_m_axis_tlast, ax_o, ax_n), pl(n_m_axis_tlast, ax_o, ax_n), 1);
        cmp("m_axis_tuser",   pl(o_m_axis_tuser, ax_o, ax_n), pl(n_m_axis_tuser, ax_o, ax_n), 64);
        cmp("m_rate_valid",   o_m_rate_valid,   n_m_rate_valid, 1);
        cmp("m_rate_time",    pl(o_m_rate_time, rt_o, rt_n),    pl(n_m_rate_time, rt_o, rt_n), 64);
        cmp("m_rate_qp",      pl(o_m_rate_qp, rt_o, rt_n),      pl(n_m_rate_qp, rt_o, rt_n), 24);
        cmp("m_rate_rate",    pl(o_m_rate_rate, rt_o, rt_n),    pl(n_m_rate_rate, rt_o, rt_n), 32);
        cmp("m_rate_target",  pl(o_m_rate_target, rt_o, rt_n),  pl(n_m_rate_target, rt_o, rt_n), 32);
        cmp("m_rate_alpha",   pl(o_m_rate_alpha, rt_o, rt_n),   pl(n_m_rate_alpha, rt_o, rt_n), 16);
        cmp("m_rate_stage",   pl(o_m_rate_stage, rt_o, rt_n),   pl(n_m_rate_stage, rt_o, rt_n), 2);
        cmp("m_rate_trigger", pl(o_m_rate_trigger, rt_o, rt_n), pl(n_m_rate_trigger, rt_o, rt_n), 2);
        cmp("m_rate_sent",    pl(o_m_rate_sent, rt_o, rt_n),    pl(n_m_rate_sent, rt_o, rt_n), 1);
        cmp("m_rate_len",     pl(o_m_rate_len, rt_o, rt_n),     pl(n_m_rate_len, rt_o, rt_n), 17);
        cmp("m_retx_valid",   o_m_retx_valid,   n_m_retx_valid, 1);
        cmp("m_retx_time",    pl(o_m_retx_time, rx_o, rx_n),    pl(n_m_retx_time, rx_o, rx_n), 64);
        cmp("m_retx_qp",      pl(o_m_retx_qp, rx_o, rx_n),      pl(n_m_retx_qp, rx_o, rx_n), 24);
        cmp("m_retx_psn",     pl(o_m_retx_psn, rx_o, rx_n),     pl(n_m_retx_psn, rx_o, rx_n), 24);
        cmp("m_retx_count",   pl(o_m_retx_count, rx_o, rx_n),   pl(n_m_retx_count, rx_o, rx_n), 24);
        cmp("m_retx_cause",   pl(o_m_retx_cause, rx_o, rx_n),   pl(n_m_retx_cause, rx_o, rx_n), 2);
        if (ndiff != 0) begin
            $display("  (valids this cycle, orig/new: m_axis_tvalid=%b/%b m_rate_valid=%b/%b m_retx_valid=%b/%b)",
                     o_m_axis_tvalid, n_m_axis_tvalid, o_m_rate_valid, n_m_rate_valid, o_m_retx_valid, n_m_retx_valid);
            $display("  (inputs this cycle: evt_valid=%b kind=%0d qp=%0d time=%0d psn=%0h rc_req=%b syndrome_valid=%b syndrome=%h qpctx_valid=%b local=%0d m_axis_tready=%b m_rate_ready=%b m_retx_ready=%b)",
                     s_evt_valid, s_evt_kind, s_evt_qp, s_evt_time, s_evt_psn, s_evt_rc_req, s_evt_syndrome_valid,
                     s_evt_syndrome, s_qpctx_valid, s_qpctx_local, m_axis_tready, m_rate_ready, m_retx_ready);
            $display("EQUIV FAIL seed=%0d W=%0d Q=%0d: %0d output(s) differ at cycle %0d, after %0d events accepted",
                     seed, W, Q, ndiff, cycle, n_evt);
            $finish;
        end
    end
endtask

// ---------------------------------------------------------------- RTL assertions
// With --assert (METAROCE_ASSERTIONS) the RTL's DPI import is replaced by a
// function that calls this task. Icarus is 4-state: a register that no event
// has written yet is X, and an assertion reading it fails where Verilator
// (2-state) would see a value (seen: dcqcn_rp's "A's same-QP bits" and
// "carry-save sum" checks at its first events, with R..C's QP registers X).
// So a failure before +assert_from=C (default 2*Q+1000 cycles after reset:
// past the RAM sweeps, by when every pipeline register has been written)
// is counted and shown but not fatal; one after it stops the run.
integer n_assert = 0, n_assert_early = 0, assert_from = 2 * Q + 1000;
function automatic void rtl_assertion(input string message);
    begin
        if (cycle < assert_from) begin
            n_assert_early = n_assert_early + 1;
            if (n_assert_early <= 10)
                $display("cycle %0d: RTL assertion before cycle %0d (not fatal): %0s", cycle, assert_from, message);
        end else begin
            n_assert = n_assert + 1;
            $display("EQUIV FAIL: RTL assertion at cycle %0d: %0s", cycle, message);
            $finish;
        end
    end
endfunction

`include "cn_equiv_stim.svh"

// Frame decode for the counts (first wire byte in tdata[7:0]).
reg [7:0] fb [0:255];
integer   fb_len = 0;
task frame_beat;
    integer b, off, et;
    begin
        for (b = 0; b < K; b = b + 1)
            if (n_m_axis_tkeep[b] && fb_len < 256) begin
                fb[fb_len] = n_m_axis_tdata[8*b +: 8];
                fb_len = fb_len + 1;
            end
        if (n_m_axis_tlast) begin
            n_frames = n_frames + 1;
            off = 12;
            et = {fb[off], fb[off+1]};
            if (et == 16'h8100) begin
                off = 16;
                et = {fb[off], fb[off+1]};
            end
            off = off + 2 + (et == 16'h86DD ? 40 : 20) + 8;    // the BTH
            // The responder's RC ACK opcode 0x11 and NAK syndrome 0x60
            // (PSN sequence error) in the AETH after the 12-byte BTH.
            if (fb[off] == OPCODE_CNP) n_cnp = n_cnp + 1;
            else if (fb[off] == OPCODE_RC_ACK && fb[off+12] == SYNDROME_NAK_PSN) n_nak = n_nak + 1;
            else if (fb[off] == OPCODE_RC_ACK) n_ack = n_ack + 1;
            else n_other = n_other + 1;
            fb_len = 0;
        end
    end
endtask

// ---------------------------------------------------------------- main loop
reg        evt_pending = 0;     // an event is on offer (held until taken)
reg        qpctx_pending = 0;
reg        rdy;
integer    quiet = 0;
integer    vcd_from = -1;

initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("events=%d", n_events)) n_events = 18000;
    if (!$value$plusargs("max_cycles=%d", max_cycles)) max_cycles = 4000000;
    if (!$value$plusargs("ack_mode=%d", ack_mode_arg)) ack_mode_arg = -1;
    if (!$value$plusargs("metaroce=%d", metaroce_arg)) metaroce_arg = -1;
    lenient = $test$plusargs("lenient");
    if (!$value$plusargs("assert_from=%d", assert_from)) assert_from = 2 * Q + 1000;
    verbose = $test$plusargs("verbose");
    if ($test$plusargs("vcd") && !$value$plusargs("vcd_from=%d", vcd_from)) vcd_from = 0;
    rs = seed * 64'h9E3779B97F4A7C15 + 64'h0123456789ABCDEF;
    for (i = 0; i < 20; i = i + 1) rs = rnd(0);
    rs2 = rs ^ 64'hD1B54A32D192ED03;
    for (i = 0; i < 4; i = i + 1) begin n_evt_kind[i] = 0; n_rate_trig[i] = 0; n_held_kind[i] = 0; end
    for (i = 0; i < Q; i = i + 1) begin psn_known[i] = 0; exp_psn[i] = 0; tx_known[i] = 0; tx_una[i] = 0; tx_nxt[i] = 0; tx_cur[i] = 0; end
    for (i = 0; i < 4; i = i + 1) hot[i] = rndr(Q);
    make_cfg;
    $display("EQUIV roce_cn_orig vs roce_cn: W=%0d Q=%0d seed=%0d events=%0d %0s", W, Q, seed, n_events,
             lenient ? "(lenient: payloads compared only while valid)" : "(strict: every output bit every cycle)");
    $display("cfg: metaroce=%0d line=%0d kb/s cnp_interval=%0d ns min_rate=%0d kb/s min_dec=%0d g=%0d alpha_period=%0d T=%0d B=%0d F=%0d ai=%0d hai=%0d init_alpha=%0d first_cnp=%0d clamp=%0d reduce_period=%0d ack_mode=%0d coalesce=%0d",
             cfg[`CFG_METAROCE], cfg[`CFG_LINE_RATE_KBPS], cfg[`CFG_CNP_INTERVAL_NS], cfg[`CFG_MIN_RATE_KBPS],
             cfg[`CFG_MIN_DEC_Q15], cfg[`CFG_G], cfg[`CFG_ALPHA_PERIOD_NS], cfg[`CFG_TIME_RESET_NS],
             cfg[`CFG_BYTE_RESET], cfg[`CFG_THRESHOLD], cfg[`CFG_AI_KBPS], cfg[`CFG_HAI_KBPS],
             cfg[`CFG_INITIAL_ALPHA], cfg[`CFG_FIRST_CNP_KBPS], cfg[`CFG_CLAMP_TGT],
             cfg[`CFG_REDUCE_PERIOD_NS], cfg[`CFG_ACK_MODE], cfg[`CFG_ACK_COALESCE_PKTS]);

    if ($test$plusargs("cfg_only")) $finish;
    // Reset: 4 cycles (SPEC.md §2), inputs random meanwhile.
    rst = 1'b1;
    repeat (4) begin
        @(posedge clk); #1;
        randomize_evt_fields; randomize_qpctx_fields;
        s_evt_valid = rnd(0); s_qpctx_valid = rnd(0);
        m_axis_tready = rnd(0); m_rate_ready = rnd(0);
        swap_stream; m_retx_ready = rnd(0); swap_stream;
        #1 compare_all;
    end
    @(posedge clk); #1;
    rst = 1'b0;
    in_reset = 0;
    s_evt_valid = 0; s_qpctx_valid = 0;

    forever begin
        // -- drive this cycle's inputs
        // context loads: first a sweep over every QP (7 in 8 loaded), later
        // now and then, mostly hot QPs
        if (!qpctx_pending) begin
            while (init_qp < Q && chance(125)) init_qp = init_qp + 1;
            if (init_qp < Q) begin
                make_qpctx(init_qp);
                init_qp = init_qp + 1;
                qpctx_pending = 1;
            end else if (!draining && chance(4)) begin
                make_qpctx(chance(500) ? hot[rndr(4)] : chance(900) ? rndr(Q) : Q + rndr(4));
                qpctx_pending = 1;
            end
        end
        s_qpctx_valid = qpctx_pending && (init_qp < Q || chance(700));
        if (!s_qpctx_valid && !qpctx_pending) randomize_qpctx_fields;

        // events: valid at a per-phase rate with idle stretches; once
        // offered, held with the same payload until taken
        if (chance(3)) valid_pct = pick4(100, 90, 50, 10);
        if (chance(2)) begin
            hot[rndr(4)] = rndr(Q);
            if (verbose) $display("cycle %0d: hot QPs %0d %0d %0d %0d", cycle, hot[0], hot[1], hot[2], hot[3]);
        end
        if (evt_idle > 0) evt_idle = evt_idle - 1;
        else if (chance(1)) evt_idle = chance(100) ? rndr(2000) : rndr(100);
        if (!evt_pending && !draining && evt_idle == 0 && rndr(100) < valid_pct) begin
            make_event;
            evt_pending = 1;
        end
        s_evt_valid = evt_pending;
        if (!evt_pending) randomize_evt_fields;

        next_ready(axis_stall, axis_pct, rdy); m_axis_tready = rdy;
        next_ready(rate_stall, rate_pct, rdy); m_rate_ready = rdy;
        swap_stream; next_ready(retx_stall, retx_pct, rdy); m_retx_ready = rdy; swap_stream;

        // -- let it settle, compare every output
        #1;
        compare_all;

        // X on a handshake or status output after reset is a bug in both
        if ((^{n_s_qpctx_ready, n_s_evt_ready, n_m_axis_tvalid, n_m_rate_valid, n_m_retx_valid, n_busy}) === 1'bx) begin
            $display("EQUIV FAIL: X on a valid/ready/busy output at cycle %0d (both instances)", cycle);
            $finish;
        end

        // -- the handshakes of the coming edge (both instances agree)
        if (s_evt_valid && !n_s_evt_ready) begin
            n_evt_stall = n_evt_stall + 1;
            n_held_kind[s_evt_kind] = n_held_kind[s_evt_kind] + 1;
        end
        if (!m_axis_tready) n_axis_nr = n_axis_nr + 1;
        if (!m_rate_ready) n_rate_nr = n_rate_nr + 1;
        if (!m_retx_ready) n_retx_nr = n_retx_nr + 1;
        if (s_qpctx_valid && !n_s_qpctx_ready) n_qpctx_stall = n_qpctx_stall + 1;
        if (s_evt_valid && n_s_evt_ready) begin
            n_evt = n_evt + 1;
            n_evt_kind[s_evt_kind] = n_evt_kind[s_evt_kind] + 1;
            if (s_evt_kind == KIND_RX_DATA && s_evt_rc_req) n_evt_rc = n_evt_rc + 1;
            if (s_evt_kind == KIND_RX_DATA && s_evt_ce) n_evt_ce = n_evt_ce + 1;
            if (s_evt_kind == KIND_RX_DATA && s_evt_syndrome_valid) begin
                n_evt_syn = n_evt_syn + 1;
                if (s_evt_syndrome[7:5] == 0) n_evt_syn_ack = n_evt_syn_ack + 1;
                if (s_evt_syndrome == SYNDROME_NAK_PSN) n_evt_syn_nak = n_evt_syn_nak + 1;
            end
            if (s_evt_kind == KIND_TX_DATA && s_evt_rc_req) n_evt_tx_rc = n_evt_tx_rc + 1;
            if (s_evt_qp >= Q) n_evt_oor = n_evt_oor + 1;
            note_event_taken;
            evt_pending = 0;
            if (n_evt >= n_events && !draining) begin
                draining = 1;
                $display("cycle %0d: %0d events accepted, draining", cycle, n_evt);
            end
        end
        if (s_qpctx_valid && n_s_qpctx_ready) begin
            n_qpctx = n_qpctx + 1;
            note_qpctx_taken;
            qpctx_pending = 0;
        end
        if (n_m_axis_tvalid && m_axis_tready) begin
            n_beats = n_beats + 1;
            if ((^{n_m_axis_tdata, n_m_axis_tkeep, n_m_axis_tlast, n_m_axis_tuser}) === 1'bx) n_xpay = n_xpay + 1;
            frame_beat;
        end
        if (n_m_rate_valid && m_rate_ready) begin
            n_rate = n_rate + 1;
            n_rate_trig[n_m_rate_trigger] = n_rate_trig[n_m_rate_trigger] + 1;
            if (n_m_rate_sent) n_rate_sent = n_rate_sent + 1;
            if ((^{n_m_rate_time, n_m_rate_qp, n_m_rate_rate, n_m_rate_target, n_m_rate_alpha,
                   n_m_rate_stage, n_m_rate_trigger, n_m_rate_sent, n_m_rate_len}) === 1'bx) n_xpay = n_xpay + 1;
        end
        if (n_m_retx_valid && m_retx_ready) begin
            n_retx = n_retx + 1;
            if (n_m_retx_count == 1) n_retx_one = n_retx_one + 1;
            if (n_m_retx_count > 24) n_retx_many = n_retx_many + 1;
            if (n_m_retx_cause == CAUSE_RETRY_EXHAUSTED) n_retx_exhausted = n_retx_exhausted + 1;
            if (n_m_retx_cause == CAUSE_TIMEOUT) n_retx_timeout = n_retx_timeout + 1;
            if ((^{n_m_retx_time, n_m_retx_qp, n_m_retx_psn, n_m_retx_count, n_m_retx_cause}) === 1'bx) n_xpay = n_xpay + 1;
        end

        // -- end: drained (idle, nothing on offer) for 32 cycles
        if (draining && !n_busy && !n_m_axis_tvalid && !n_m_rate_valid && !n_m_retx_valid && !qpctx_pending) quiet = quiet + 1;
        else quiet = 0;
        if (quiet >= 32) finish_run;
        if (cycle >= max_cycles) begin
            $display("EQUIV FAIL: cycle limit %0d reached with %0d events accepted (busy=%b)", max_cycles, n_evt, n_busy);
            print_counts;
            $finish;
        end

        @(posedge clk);
        cycle = cycle + 1;
        if (vcd_from >= 0 && cycle == vcd_from) begin
            $dumpfile("cn_equiv.vcd");
            $dumpvars(0, cn_equiv_tb);
        end
        #1;
    end
end

task print_counts;
    begin
        $display("counts after %0d cycles:", cycle);
        // (rtl_equiv.rs reads the first count after "rc_req ", "CNP ", "ACK ",
        // "NAK ", "trigger cnp " and "retransmit requests ": each label once)
        $display("  s_evt    accepted %0d: rx data %0d (rc_req %0d, ce %0d, syndrome %0d: ack %0d, nak psn %0d), rx cnp %0d, tx data %0d (rc requests %0d, %0d not beyond nxt), unknown kind %0d; QP out of range %0d",
                 n_evt, n_evt_kind[KIND_RX_DATA], n_evt_rc, n_evt_ce, n_evt_syn, n_evt_syn_ack, n_evt_syn_nak,
                 n_evt_kind[KIND_RX_CNP], n_evt_kind[KIND_TX_DATA], n_evt_tx_rc, n_evt_tx_back, n_evt_kind[3], n_evt_oor);
        $display("           cycles offered but held %0d (rx data %0d, rx cnp %0d, tx data %0d); m_axis_tready low %0d cycles, m_rate_ready low %0d, m_retx_ready low %0d",
                 n_evt_stall, n_held_kind[KIND_RX_DATA], n_held_kind[KIND_RX_CNP], n_held_kind[KIND_TX_DATA], n_axis_nr, n_rate_nr, n_retx_nr);
        $display("  s_qpctx  accepted %0d; cycles held %0d", n_qpctx, n_qpctx_stall);
        $display("  m_axis   beats %0d, frames %0d: CNP %0d, ACK %0d, NAK %0d, other %0d",
                 n_beats, n_frames, n_cnp, n_ack, n_nak, n_other);
        $display("  m_rate   items %0d: trigger cnp %0d, timer %0d, byte_counter %0d, sent %0d; with sent=1 %0d",
                 n_rate, n_rate_trig[TRIGGER_CNP], n_rate_trig[TRIGGER_TIMER], n_rate_trig[TRIGGER_BYTE_COUNTER], n_rate_trig[TRIGGER_SENT], n_rate_sent);
        $display("  m_retx   retransmit requests %0d: of one packet %0d, of more than 24 %0d, timeout %0d, retry exhausted %0d (retry_cnt %0d, retx_timeout %0d)",
                 n_retx, n_retx_one, n_retx_many, n_retx_timeout, n_retx_exhausted, cfg[`CFG_RETRY_CNT], cfg[`CFG_RETX_TIMEOUT]);
        $display("  busy     high %0d cycles", n_busy_hi);
        $display("  outputs with X in their payload while handed over: %0d", n_xpay);
        $display("  RTL assertion failures before cycle %0d (not fatal; only with --assert): %0d", assert_from, n_assert_early);
    end
endtask

always @(posedge clk) if (!in_reset && n_busy === 1'b1) n_busy_hi <= n_busy_hi + 1;

task finish_run;
    reg ok;
    begin
        print_counts;
        ok = 1;
        if (n_evt == 0 || n_qpctx == 0) begin ok = 0; $display("EQUIV FAIL: an input never took anything"); end
        if (n_evt_kind[KIND_RX_DATA] == 0 || n_evt_kind[KIND_RX_CNP] == 0 || n_evt_kind[KIND_TX_DATA] == 0) begin ok = 0; $display("EQUIV FAIL: an event kind was never taken"); end
        if (n_frames == 0 || n_cnp == 0) begin ok = 0; $display("EQUIV FAIL: m_axis never sent a CNP"); end
        if (cfg[`CFG_ACK_MODE] == ACK_MODE_ROCEV2 && (n_ack == 0 || n_nak == 0)) begin ok = 0; $display("EQUIV FAIL: ack_mode rocev2 but no ACK or no NAK on m_axis"); end
        if (n_rate == 0 || n_rate_trig[TRIGGER_CNP] == 0 || n_rate_trig[TRIGGER_SENT] == 0) begin ok = 0; $display("EQUIV FAIL: m_rate never gave a cut or a hand-over"); end
        if (cfg[`CFG_ACK_MODE] == ACK_MODE_ROCEV2 && n_retx == 0) begin ok = 0; $display("EQUIV FAIL: ack_mode rocev2 but no retransmit request on m_retx"); end
        // With ack_mode off the requester takes its events and changes
        // nothing (SPEC.md §6.11): a request then is wrong on both sides.
        if (cfg[`CFG_ACK_MODE] != ACK_MODE_ROCEV2 && n_retx != 0) begin ok = 0; $display("EQUIV FAIL: ack_mode off but retransmit requests on m_retx"); end
        if (n_busy_hi == 0) begin ok = 0; $display("EQUIV FAIL: busy never rose"); end
        if (n_xpay != 0) begin ok = 0; $display("EQUIV FAIL: X in a payload handed over (the same X on both sides compares equal)"); end
        if (n_rate_trig[TRIGGER_TIMER] == 0) $display("EQUIV NOTE: no timer rate change this run");
        if (n_rate_trig[TRIGGER_BYTE_COUNTER] == 0) $display("EQUIV NOTE: no byte-counter rate change this run (cfg B=%0d)", cfg[`CFG_BYTE_RESET]);
        if (ok) $display("EQUIV PASS seed=%0d W=%0d Q=%0d: %0d cycles, %0d events, every output identical every cycle%0s", seed, W, Q, cycle, n_evt,
                         lenient ? " (payloads while valid)" : "");
        $finish;
    end
endtask

endmodule

`default_nettype wire
