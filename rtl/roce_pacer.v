// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "metaroce_cfg.vh"

/*
 * Pacer (SPEC.md §7): releases each QP's packets at the QP's rate.
 *
 * Carousel-style. A packet gets its eligible time when it is handed over:
 * GCRA on the QP's theoretical arrival time (TAT) with a burst allowance,
 * and a minimum gap to the QP's previous packet (pacer_gcra.v). The TAT is
 * kept as the base and length of the QP's last packet, priced at the QP's
 * byte time when used, so a rate change re-prices it (ns-3 ChangeRate); a
 * rate change also re-times the QP's newest packet if it still waits and
 * the new time is earlier: the GCRA again from the debt before it, into a
 * new descriptor, the old one left stale (not live) and skipped when
 * served. It then
 * waits in a timing wheel of SLOT_COUNT slots of 2^SLOT_SHIFT ns, each a
 * FIFO (linked list of packet descriptors). Three levels: each level above
 * 0 has as many slots, each as wide as the whole level below (its
 * horizon); a packet goes into the lowest level whose horizon holds it
 * (level 2's last slot beyond that; pacer_place.v) and cascades down when
 * time reaches its slot, higher levels first among slots of the same
 * start. The wheel is served in slot order into the egress
 * (pacer_egress.v): one FIFO per priority, where a packet leaves at its
 * eligible time or when the link is free (aggregate line-rate cap),
 * whichever is later, or at the end of a PAUSE/PFC pause of its priority,
 * once time has reached that. Slot heads and tails of all levels
 * share one RAM each, addressed {level, slot} (a fourth quarter unused).
 *
 * Time is virtual, carried by the commands: a slot is served once a command
 * whose tick is at or past the slot's start is next (before that command
 * is taken), or while `flush` is high and no command waits. The schedule
 * so depends on the commands alone, never on cycles.
 *
 * The next event (the first busy slot) is kept in registers: an inserted
 * packet updates it with one comparison; when a slot empties, the wheel
 * scan (pacer_scan.v, 6 stages over the busy bits) gives the new one. A
 * slot being served has its busy bit cleared, so the scan already looks
 * past it. Every RAM has a registered read, and every RAM output loads
 * one register first; the QP, descriptor, live-bit and link RAMs, spread
 * over many block RAMs across the die, register their outputs twice
 * (qp_state_ram.v OUTPUT_REG; on ECP5 the DP16KD's output register).
 * Cycles (SPEC.md §7.6): a packet handed over 11 (10 after another QP's,
 * its words read while it waited), a rate 57 (the division, a packet of
 * the same command alongside, and the re-time's check; 58 when the packet
 * moves), a time advance 3; a slot's packets served into the egress every
 * 3 cycles (a link RAM read and its output register per step), 2 more at
 * a change of slot, and a slot that empties waits for the scan (fresh 8
 * cycles after the decision that cleared its busy bit); a cascade step 9;
 * a release every 10 cycles from the egress while packets are due. A pause,
 * or a packet while every descriptor is in use, waits until the egress
 * has let out what is due by its tick. Commands wait in a 2-entry input
 * buffer; releases in the egress's 8-entry output FIFO behind its output
 * register (no combinational path between the two sides).
 *
 * Times are ns in Q44.20; byte times ns per byte in Q20.20, rounded up so
 * no QP is paced faster than its rate. A rate change runs a 43-cycle
 * restoring division (8e6 * 2^20 / kb/s) and a rounding cycle.
 *
 * | port                | width | meaning                                       |
 * |---------------------|-------|-----------------------------------------------|
 * | cfg                 | CFG_W | registers (rtl/metaroce_cfg.vh); this module  |
 * |                     |       | reads burst_bytes, min_gap_ns (ns),           |
 * |                     |       | line_byte_time and start_byte_time (ns per    |
 * |                     |       | byte at line / start rate, Q20.20)            |
 * | s_cmd_time          | 64    | tick of the command; the highest seen is now  |
 * | s_cmd_qp            | 24    | QP (beyond QP_COUNT: ignored)                 |
 * | s_cmd_rate_valid    | 1     | s_cmd_rate is the QP's new rate               |
 * | s_cmd_rate          | 32    | kb/s (below 10 kb/s paces at 10 kb/s)         |
 * | s_cmd_send          | 1     | a packet of s_cmd_len bytes, paced at the      |
 * |                     |       | rate before this command's new rate (whose    |
 * |                     |       | re-time may then move it earlier)             |
 * |                     |       | (neither rate nor send: a time advance)       |
 * | flush               | 1     | no more commands: serve every slot            |
 * | m_rel_time          | 64    | release tick (ns, rounded up), or the drop's  |
 * | m_rel_qp, m_rel_len | 24,17 | the packet                                    |
 * | s_cmd_pause         | 1     | a PAUSE/PFC frame received (SPEC.md §7.5):    |
 * | s_cmd_pause_enable  | 8     | bit p: priority p is paused for ...           |
 * | s_cmd_pause_quanta  | 128   | ... its quanta (priority 0 in bits 127:112)   |
 * | s_prio_*            | 24, 3 | a QP's priority (its next packets')           |
 * | m_rel_drop          | 1     | refused: every descriptor in use (packets     |
 * |                     |       | held, served ones not yet gone, stale ones)   |
 * | busy                | 1     | packets held, or work in flight               |
 * | active              | 1     | work in flight (a command, a step, a release) |
 * | next_busy_valid     | 1     | not active, packets held: ...                 |
 * | next_busy_time      | 64    | ... the start tick of the first busy slot,    |
 * |                     |       | when a driver must next advance time          |
 *
 * QP RAMs: byte_time 40; the debt word (packed and unpacked in one place
 * below): base 64, len 17, gap_ready 64 after the newest packet, the same
 * before it, wait_ok 1 and the newest packet's descriptor. Descriptor RAM
 * word: qp, len 17, eligible 64, priority 3; a live bit per descriptor; a
 * priority per QP. Links, slot
 * heads and tails: RAMs of descriptor indices. All block RAM.
 */
module roce_pacer #(
    parameter QP_COUNT = 4096,
    parameter SLOT_COUNT = 256,
    parameter SLOT_SHIFT = 6,
    parameter DESC_COUNT = 4096
) (
    input  wire         clk,
    input  wire         rst,

    input  wire [`CFG_WIDTH-1:0] cfg,

    input  wire         s_cmd_valid,
    output wire         s_cmd_ready,
    input  wire [63:0]  s_cmd_time,
    input  wire [23:0]  s_cmd_qp,
    input  wire         s_cmd_rate_valid,
    input  wire [31:0]  s_cmd_rate,
    input  wire         s_cmd_send,
    input  wire [16:0]  s_cmd_len,
    input  wire         s_cmd_pause,
    input  wire [7:0]   s_cmd_pause_enable,
    input  wire [127:0] s_cmd_pause_quanta,
    input  wire         flush,

    input  wire         s_prio_valid,
    output wire         s_prio_ready,
    input  wire [23:0]  s_prio_qp,
    input  wire [2:0]   s_prio_value,

    output wire         m_rel_valid,
    input  wire         m_rel_ready,
    output wire [63:0]  m_rel_time,
    output wire [23:0]  m_rel_qp,
    output wire [16:0]  m_rel_len,
    output wire         m_rel_drop,

    output wire         busy,
    output wire         active,
    output wire         next_busy_valid,
    output wire [63:0]  next_busy_time
);

// The registers this module reads: slices of the cfg bus (rtl/metaroce_cfg.vh).
wire [`CFG_BURST_BYTES_W-1:0] cfg_burst_bytes = cfg[`CFG_BURST_BYTES];
wire [`CFG_MIN_GAP_NS_W-1:0] cfg_min_gap = cfg[`CFG_MIN_GAP_NS];
wire [`CFG_LINE_BYTE_TIME_W-1:0] cfg_line_byte_time = cfg[`CFG_LINE_BYTE_TIME];
wire [`CFG_START_BYTE_TIME_W-1:0] cfg_start_byte_time = cfg[`CFG_START_BYTE_TIME];
// The other modules' registers.
wire unused_cfg = &{1'b0, cfg};

localparam QP_INDEX_WIDTH = QP_COUNT > 1 ? $clog2(QP_COUNT) : 1;
localparam SB = $clog2(SLOT_COUNT);
localparam DIW = $clog2(DESC_COUNT);
localparam FRAC_BITS = 20;
// The QP's byte time, and its debts (pacer_gcra.v) in a RAM of their own:
// a rate writes the one, a packet or a re-time the other.
localparam DEBT_WORD_WIDTH = 2 * (64 + 17 + 64) + 1 + $clog2(DESC_COUNT);
localparam DESC_WORD_WIDTH = QP_INDEX_WIDTH + 17 + 64 + 3;
localparam INIT_LAST = (QP_COUNT > DESC_COUNT ? QP_COUNT : DESC_COUNT) - 1;
// 8e6 ns per byte per kb/s, Q.20: the dividend of every byte time.
localparam [42:0] BYTE_TIME_NUMERATOR = 43'd8388608000000;
localparam [31:0] MIN_PACED_RATE = 32'd10;
localparam [63:0] HORIZON_SPAN = {32'd0, SLOT_COUNT[31:0] - 32'd1};
localparam [63:0] HALF_SPAN = {32'd0, SLOT_COUNT[31:0] / 32'd2 - 32'd1};
localparam [DIW:0] DESC_FULL = DESC_COUNT[DIW:0];
// pacer_scan.v's stages.
localparam [2:0] SCAN_LATENCY = 3'd6;

// Illegal parameters stop elaboration: the instance of a module that does
// not exist names the rule (Icarus Verilog 11 has no elaboration $error).
generate
    if (QP_COUNT < 1 || QP_COUNT > (1 << 24)) begin : g_bad_qp_count
        roce_pacer_QP_COUNT_must_be_1_to_2_pow_24 bad_qp_count();
    end
    if (SLOT_COUNT < 2 || (SLOT_COUNT & (SLOT_COUNT - 1)) != 0 || SLOT_COUNT > 4096) begin : g_bad_slot_count
        roce_pacer_SLOT_COUNT_must_be_a_power_of_2_from_2_to_4096 bad_slot_count();
    end
    if (DESC_COUNT < 2 || (DESC_COUNT & (DESC_COUNT - 1)) != 0 || DESC_COUNT > (1 << 20)) begin : g_bad_desc_count
        roce_pacer_DESC_COUNT_must_be_a_power_of_2_from_2_to_2_pow_20 bad_desc_count();
    end
    if (SLOT_SHIFT < 0 || SLOT_SHIFT > 20) begin : g_bad_slot_shift
        roce_pacer_SLOT_SHIFT_must_be_0_to_20 bad_slot_shift();
    end
endgenerate

// The QP's debt word, packed here and unpacked below, nowhere else: the
// debt after its newest packet, the debt before it (what a re-time starts
// from), and that packet's descriptor (wait_ok: it has one).
function [DEBT_WORD_WIDTH-1:0] debt_word(
    input [63:0] base, input [16:0] len, input [63:0] gap_ready,
    input [63:0] prev_base, input [16:0] prev_len, input [63:0] prev_gap_ready,
    input wait_ok, input [DIW-1:0] wait_desc
);
    debt_word = {base, len, gap_ready, prev_base, prev_len, prev_gap_ready, wait_ok, wait_desc};
endfunction

// The controller's states, one-hot: each is the index of its bit in
// state_reg (a test of one register, no decoder, before every use).
localparam
    STATE_INIT = 0,
    STATE_IDLE = 1,
    STATE_TAKE = 2,
    STATE_GCRA = 3,
    STATE_INSERT = 4,
    STATE_RATE = 5,
    STATE_DROP = 6,
    STATE_HEAD = 7,
    STATE_POP_A = 8,
    STATE_POP_B = 9,
    STATE_POP_STOP = 10,
    STATE_CASCADE_A = 11,
    STATE_CASCADE_B = 12,
    STATE_CASCADE_PLACE = 13,
    STATE_CASCADE_INSERT = 14,
    STATE_SETTLE = 15,
    STATE_POP_C = 16,
    STATE_RETIME_READ = 17,
    STATE_RETIME_TAKE = 18,
    STATE_TAKE_WAIT = 19,
    STATE_RETIME_WAIT = 20;
localparam STATE_COUNT = 21;
// The steps that read a placement's slot (its old tail) and load
// ins_addr_reg: the GCRA's last, the cascade's; the slot RAMs are
// addressed with the placement the step before.
localparam [2:0] GCRA_PLACE_STEP = 3'd6, CASCADE_PLACE_STEP = 3'd3;

function [STATE_COUNT-1:0] to_state(input integer index);
    to_state = {{(STATE_COUNT-1){1'b0}}, 1'b1} << index;
endfunction

reg [STATE_COUNT-1:0] state_reg = to_state(STATE_INIT), state_next;
reg [31:0] init_addr_reg = 32'd0;
// The sweep is still below QP_COUNT, below DESC_COUNT.
reg        init_qp_reg = 1'b1, init_desc_reg = 1'b1;
reg [2:0]  step_reg = 3'd0, step_next;

// The input buffer: two entries, ready from a register.
localparam CMD_QP_LSB = 1 + 8 + 128 + 1 + 1 + 32 + 1 + 17;  // the fields below the QP
localparam CMD_WIDTH = 64 + QP_INDEX_WIDTH + CMD_QP_LSB;
reg                 cmd0_valid_reg = 1'b0, cmd1_valid_reg = 1'b0;
reg [CMD_WIDTH-1:0] cmd0_reg, cmd1_reg;
wire [63:0]               hd_time;
wire [QP_INDEX_WIDTH-1:0] hd_qp;
wire                      hd_touches, hd_rate_valid, hd_send, hd_pause;
wire [31:0]               hd_rate;
wire [16:0]               hd_len;
wire [7:0]                hd_pause_enable;
wire [127:0]              hd_pause_quanta;
assign {hd_time, hd_qp, hd_pause, hd_pause_enable, hd_pause_quanta, hd_touches, hd_rate_valid, hd_rate, hd_send,
        hd_len} = cmd0_reg;
wire hd_valid = cmd0_valid_reg;
reg  hd_pop;
assign s_cmd_ready = !cmd1_valid_reg;
wire cmd_push = s_cmd_valid && !cmd1_valid_reg;
// The head command changes (or the watermark, at a take).
wire hd_pop_or_load = hd_pop || (cmd_push && !cmd0_valid_reg);
// A command with neither a rate nor a packet only moves time on.
wire [CMD_WIDTH-1:0] cmd_in = {s_cmd_time, s_cmd_qp[QP_INDEX_WIDTH-1:0],
                               s_cmd_pause, s_cmd_pause_enable, s_cmd_pause_quanta,
                               {8'd0, s_cmd_qp} < QP_COUNT && (s_cmd_rate_valid || s_cmd_send),
                               s_cmd_rate_valid, s_cmd_rate, s_cmd_send, s_cmd_len};

// The head command in the next cycle (the QP RAMs' read address is
// registered from its QP).
wire [CMD_WIDTH-1:0] cmd0_next = !hd_pop_or_load ? cmd0_reg : (hd_pop && cmd1_valid_reg ? cmd1_reg : cmd_in);

always @(posedge clk) begin
    cmd0_reg <= cmd0_next;
    // An empty second entry follows the input, so its enable is one
    // register (what it holds counts only once it is valid).
    if (!cmd1_valid_reg) begin
        cmd1_reg <= cmd_in;
    end
    if (hd_pop) begin
        cmd0_valid_reg <= cmd1_valid_reg || cmd_push;
        cmd1_valid_reg <= cmd1_valid_reg && cmd_push;
    end else if (cmd_push) begin
        if (cmd0_valid_reg) begin
            cmd1_valid_reg <= 1'b1;
        end else begin
            cmd0_valid_reg <= 1'b1;
        end
    end
    if (rst) begin
        cmd0_valid_reg <= 1'b0;
        cmd1_valid_reg <= 1'b0;
    end
end

// The command being applied.
reg [QP_INDEX_WIDTH-1:0] cmd_qp_reg;
reg        cmd_rate_valid_reg, cmd_send_reg;
reg [16:0] cmd_len_reg;
reg        cmd_full_reg;
reg [63:0] now_reg;

reg [63:0] watermark_reg = 64'd0;
// The head command's time is after the watermark: compared every cycle, so
// current wherever it is read (a take and the egress's now wait, with a
// head, for cmp_known_reg: a cycle after any change of either).
reg        hd_after_wm_reg = 1'b0;
// Absolute number of the level-0 slot being served. It is raised to a
// candidate (a served slot's start, a command's now) in three steps: the
// candidate, the comparison, the raise; the next raise starts two cycles
// after one (the scan needs no fresh pointer: a raise passes no busy slot).
reg [63:0] pointer_reg = 64'd0;
reg        raise_reg = 1'b0, raise2_reg = 1'b0, raise2_gt_reg = 1'b0;
reg [63:0] raise_cand_reg = 64'd0, raise2_cand_reg = 64'd0;
reg        raise_next;
reg [63:0] raise_cand_next;
// Each level's last slot within its horizon (pacer_place.v).
reg [3*64-1:0] limit_reg;

// The next event, and the wheel scan that finds it again.
reg        nxt_ok_reg = 1'b0, nxt_ok_next;
reg        nxt_any_reg = 1'b0, nxt_any_next;
reg [63:0] nxt_start_reg = 64'd0, nxt_start_next;
reg [SB+1:0] nxt_addr_reg = 0, nxt_addr_next;
reg [2:0]  scan_age_reg = 3'd0;
wire       scan_any;
wire [63:0] scan_start;
wire [SB+1:0] scan_addr;
reg [3*SLOT_COUNT-1:0] slot_busy_reg = 0;
// Busy-bit writes, applied the cycle after they are decided: a clear (the
// slot served) and two sets (a slot inserted into, the slot served given
// back with packets left). Nothing reads a bit in that cycle.
reg          busy_clr_next, busy_set_next, busy_back_next;
reg          busy_clr_reg = 1'b0, busy_set_reg = 1'b0, busy_back_reg = 1'b0;
reg [SB+1:0] busy_clr_addr_reg = 0, busy_set_addr_reg = 0, busy_back_addr_reg = 0;

reg [DIW-1:0] free_head_reg = 0, free_head_next;
reg [DIW-1:0] free_next_reg = 0, free_next_next;
reg           free_next_ok_reg = 1'b0, free_next_ok_next;
reg           free_fetch_reg = 1'b0, free_land_reg = 1'b0;
// The link RAM's word, registered once more (qp_state_ram.v OUTPUT_REG;
// on ECP5 the DP16KD's own output register) two cycles after its read:
// the next head of a slot being served, the free list's fetch.
wire [DIW-1:0] link_q;
reg [DIW:0]   held_reg = 0, held_next;

// The slot being served, its head and tail descriptors.
reg [SB+1:0]  srv_addr_reg = 0;
reg [DIW-1:0] srv_head_reg = 0, srv_head_next;
reg [DIW-1:0] srv_tail_reg = 0;
// The descriptor cascading (its eligible time is in the release stage 0).
reg [DIW-1:0] cas_desc_reg = 0;
wire [63:0]   cas_eligible;
// An insert: its slot, start, whether the slot was busy, its descriptor.
reg [SB+1:0]  ins_addr_reg = 0;
reg           ins_busy_reg = 1'b0;
// A link written the cycle after its insert: next[old tail] = descriptor.
reg           link_pend_reg = 1'b0, link_pend_next;
reg [DIW-1:0] link_addr_reg = 0, link_data_reg = 0;

// The GCRA's eligible time, captured for the descriptor.
reg [63:0] elig_reg;
// The command's new rate re-times the QP's newest packet (SPEC.md §7.3):
// the GCRA runs again from the debt before it. Its descriptor still holds
// it (live, the QP's), and the new time is earlier.
reg        retime_reg = 1'b0;
reg        rt_live_reg = 1'b0, rt_ok_reg = 1'b0, rt_moves_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0] rt_desc_qp_reg;

// The division.
reg        div_run_reg = 1'b0, div_done_reg = 1'b0;
reg [32:0] div_rem_reg;
reg [42:0] div_quot_reg;
reg [31:0] div_divisor_reg;
reg [5:0]  div_bit_reg;
reg [39:0] div_byte_time_reg;
reg        div_start;

// RAM ports. The QP RAMs' write ports are registered (their enables reach
// many block RAMs): a word is written the cycle after it is decided.
reg                       bt_wr_en, debt_wr_en;
reg [QP_INDEX_WIDTH-1:0]  qp_wr_addr;
reg [39:0]                bt_wr_data;
reg [DEBT_WORD_WIDTH-1:0] debt_wr_data;
reg                       bt_wr_en_reg = 1'b0, debt_wr_en_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0]  qp_wr_addr_reg;
reg [39:0]                bt_wr_data_reg;
reg [DEBT_WORD_WIDTH-1:0] debt_wr_data_reg;
wire [39:0]               bt_rd_data;
wire [DEBT_WORD_WIDTH-1:0] debt_rd_data;
reg [DIW-1:0]             desc_rd_addr;
// The descriptor RAM's enables and read-address select, and the QP RAMs'
// read-address select, are registers decided from the next state: each
// reaches many block RAMs across the die, so no logic may come before the
// route. desc_rd_en_reg: a release's or a cascade's read (POP_A,
// CASCADE_A), or a re-time's read of its packet (GCRA step 0 after
// RETIME_TAKE); desc_rd_wait_reg: that packet's address (in GCRA);
// desc_wr_en_reg: an insert's write; qp_rd_retime_reg: the re-time's read.
// The QP RAMs' read address itself is a register, loaded with the QP of
// the next cycle's read: the re-time's QP (cmd_qp_reg, which no take
// changes in SETTLE, the state before RETIME_READ) or the next head
// command's.
reg                       desc_rd_en_reg = 1'b0, desc_rd_wait_reg = 1'b0, desc_wr_en_reg = 1'b0;
reg                       qp_rd_retime_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0]  qp_rd_addr_reg = {QP_INDEX_WIDTH{1'b0}};
// The QP RAMs read the head command's QP in the cycle before, with no
// write to it landing then (nor INIT's last, landing now): its take has
// its words a cycle early, as when the command before was another QP's.
reg                       qp_read_early_reg = 1'b0;
wire [DESC_WORD_WIDTH-1:0] desc_rd_data;
// Whether a descriptor holds a packet still to leave: set at its insert,
// cleared at its release or when its packet is re-timed into another.
reg                       live_wr_en, live_wr_data;
reg [DIW-1:0]             live_wr_addr;
wire                      live_rd_data;
reg                       next_rd_en, next_wr_en;
reg [DIW-1:0]             next_rd_addr, next_wr_addr, next_wr_data;
reg                       head_wr_en, tail_wr_en;
reg [SB+1:0]              head_wr_addr, tail_wr_addr;
// The slot RAMs read the next event's slot in IDLE, and the placement's at
// GCRA step 6 and CASCADE_PLACE step 3 (whether or not the packet then
// goes in: a read that is not used is harmless), chosen by a register set
// the cycle before.
reg                       slot_rd_place_reg = 1'b0;
wire                      slot_rd_en = state_reg[STATE_IDLE] || slot_rd_place_reg;
wire [SB+1:0]             slot_rd_addr = slot_rd_place_reg ? place_addr : nxt_addr_reg;
reg [DIW-1:0]             head_wr_data;
wire [DIW-1:0]            head_rd_data, tail_rd_data;

// The QP's words read for the take (or a re-time's read), on the RAMs'
// output registers two cycles on, and registered at the take (or the
// re-time's take): the GCRA's stage 0. The debt it prices from is chosen
// there (the newest, or before it for a re-time), so that the GCRA's
// multipliers take registers alone.
wire [63:0]    rd_base, rd_gap_ready, rd_prev_base, rd_prev_gap_ready;
wire [16:0]    rd_len, rd_prev_len;
wire           rd_wait_ok;
wire [DIW-1:0] rd_wait_desc;
assign {rd_base, rd_len, rd_gap_ready, rd_prev_base, rd_prev_len, rd_prev_gap_ready, rd_wait_ok,
        rd_wait_desc} = debt_rd_data;
reg [39:0]     bt_word_reg;
reg [63:0]     debt_base_reg, debt_gap_reg;
reg [16:0]     debt_len_reg;
// The newest packet's length and gap_ready (a re-time's), and its descriptor.
reg [16:0]     word_len_reg;
reg [63:0]     word_gap_ready_reg;
reg            word_wait_ok_reg;
reg [DIW-1:0]  word_wait_desc_reg;

wire [63:0] hd_slot = hd_time >> SLOT_SHIFT;
wire [63:0] wm_slot = watermark_reg >> SLOT_SHIFT;
// Whether the next event starts by the head command's now, compared a
// cycle ahead (for each value the next event may take) and known once the
// head command and the watermark have stayed put for a cycle.
reg  le_hd_reg = 1'b0, le_wm_reg = 1'b0, cmp_known_reg = 1'b0;
// The next event is taken from the scan, or from an insert.
reg  nxt_from_scan, nxt_from_insert;
// The next event is due: before the next command, or at the flush.
wire due_known = !hd_valid || cmp_known_reg;
wire due = nxt_any_reg && (hd_valid ? le_hd_reg || le_wm_reg : flush);
wire busy_pending = busy_clr_reg || busy_set_reg || busy_back_reg;

// Each bit decodes the three writes' addresses ({level, slot} is the bit's
// index).
genvar busy_bit;
generate
    for (busy_bit = 0; busy_bit < 3 * SLOT_COUNT; busy_bit = busy_bit + 1) begin : g_busy
        localparam [SB+1:0] BIT_ADDR = busy_bit;
        always @(posedge clk) begin
            if ((busy_set_reg && busy_set_addr_reg == BIT_ADDR) || (busy_back_reg && busy_back_addr_reg == BIT_ADDR)) begin
                slot_busy_reg[busy_bit] <= 1'b1;
            end else if (busy_clr_reg && busy_clr_addr_reg == BIT_ADDR) begin
                slot_busy_reg[busy_bit] <= 1'b0;
            end
            if (rst) begin
                slot_busy_reg[busy_bit] <= 1'b0;
            end
        end
    end
endgenerate
wire scan_fresh = scan_age_reg == SCAN_LATENCY && !busy_pending;
// Every descriptor in use, registered beside the count (held_reg == DESC_FULL).
reg  pool_full_reg = 1'b0;

// The egress (pacer_egress.v): a served packet's descriptor reaches it
// two cycles after its reservation (the descriptor RAM's read and output
// registers).
reg  rel_reserve, rel_in_valid_reg = 1'b0, rel_in_valid2_reg = 1'b0;
reg  drop_valid;
wire [1:0] eg_freed;
wire eg_caught_up, eg_room, eg_idle, eg_next_valid;
wire [63:0] eg_next_tick;
wire [QP_INDEX_WIDTH-1:0] desc_qp;
wire [16:0] desc_len;
wire [63:0] desc_eligible;
wire [2:0] desc_prio;
assign {desc_qp, desc_len, desc_eligible, desc_prio} = desc_rd_data;
// The egress lets out what is due by eg_now_reg: the head command's now,
// once the wheel has served every slot that starts by then (SPEC.md §7.5).
// A pause, or a packet while the pool looks full, waits until the egress
// has caught up with it (eg_at_hd_reg: loaded for this head a cycle ago).
reg [63:0] eg_now_reg = 64'd0;
reg        eg_loaded_reg = 1'b0, eg_at_hd_reg = 1'b0;
wire       hd_catch_up = hd_pause || (hd_touches && hd_send && pool_full_reg);
// The flush with the wheel empty: every packet leaves.
reg        drain_all_reg = 1'b0;
// A PAUSE/PFC command to the egress, the cycle after its take.
reg        pause_go_reg = 1'b0;
reg [7:0]  pause_enable_reg;
reg [127:0] pause_quanta_reg;
// Each QP's priority (s_prio_*): read with its other words, registered at
// the take; the write port registered as theirs.
wire [2:0] prio_rd_data;
reg  [2:0] prio_word_reg;
reg                      prio_wr_en, prio_wr_en_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0] prio_wr_addr, prio_wr_addr_reg;
reg [2:0]                prio_wr_data, prio_wr_data_reg;
assign s_prio_ready = state_reg[STATE_IDLE] && !cmd0_valid_reg && !cmd1_valid_reg;

// The GCRA and placement pipelines.
wire [63:0] gcra_eligible, gcra_base_after, gcra_gap_after;
wire [SB+1:0] place_addr;
wire          place_addr_busy;
wire [63:0] place_start;
// The placement's start against the next event's (compared in the
// placement's last stage, while the GCRA holds the next event).
wire        place_before_next, place_at_next;
// The placement's packet: the cascading one (in CASCADE_PLACE and
// CASCADE_INSERT, entered from CASCADE_B and CASCADE_PLACE only), else the
// GCRA's; a register, set the cycle before.
reg  place_from_cascade_reg = 1'b0;
// The free list's second entry is fetched whenever the link RAM's read
// port is free and the head stays.
reg  prefetch;
// The free list's head moves: a fetch landing now is stale.
reg  free_set;

always @* begin
    state_next = state_reg;
    step_next = step_reg + 1'b1;
    raise_next = 1'b0;
    raise_cand_next = nxt_start_reg;
    nxt_ok_next = nxt_ok_reg;
    nxt_any_next = nxt_any_reg;
    nxt_start_next = nxt_start_reg;
    nxt_addr_next = nxt_addr_reg;
    busy_clr_next = 1'b0;
    busy_set_next = 1'b0;
    busy_back_next = 1'b0;
    free_head_next = free_head_reg;
    free_next_next = free_next_reg;
    free_next_ok_next = free_next_ok_reg;
    held_next = held_reg;
    srv_head_next = srv_head_reg;
    link_pend_next = 1'b0;
    hd_pop = 1'b0;
    div_start = 1'b0;
    rel_reserve = 1'b0;
    drop_valid = 1'b0;
    prio_wr_en = s_prio_valid && s_prio_ready && {8'd0, s_prio_qp} < QP_COUNT;
    prio_wr_addr = s_prio_qp[QP_INDEX_WIDTH-1:0];
    prio_wr_data = s_prio_value;
    nxt_from_scan = 1'b0;
    nxt_from_insert = 1'b0;
    prefetch = !free_next_ok_reg && !free_fetch_reg && !free_land_reg;
    free_set = 1'b0;

    bt_wr_en = 1'b0;
    debt_wr_en = 1'b0;
    qp_wr_addr = cmd_qp_reg;
    bt_wr_data = div_byte_time_reg;
    // The QP's debt after the packet (cmd_len_reg is the newest packet's
    // length in a re-time); the debt it was priced from becomes the one
    // before it (a re-time's is the prior debt, which so stays).
    debt_wr_data = debt_word(gcra_base_after, cmd_len_reg, gcra_gap_after, debt_base_reg, debt_len_reg,
                             debt_gap_reg, 1'b1, free_head_reg);
    desc_rd_addr = desc_rd_wait_reg ? word_wait_desc_reg : srv_head_reg;
    live_wr_en = 1'b0;
    live_wr_addr = free_head_reg;
    live_wr_data = 1'b1;
    next_rd_en = prefetch;
    next_rd_addr = free_head_reg;
    next_wr_en = link_pend_reg;
    next_wr_addr = link_addr_reg;
    next_wr_data = link_data_reg;
    head_wr_en = 1'b0;
    head_wr_addr = ins_addr_reg;
    head_wr_data = free_head_reg;
    tail_wr_en = 1'b0;
    tail_wr_addr = ins_addr_reg;

    (* parallel_case *)
    case (1'b1)
        state_reg[STATE_INIT]: begin
            // Every QP at the start rate; every descriptor on the free list.
            if (init_qp_reg) begin
                bt_wr_en = 1'b1;
                debt_wr_en = 1'b1;
                qp_wr_addr = init_addr_reg[QP_INDEX_WIDTH-1:0];
                bt_wr_data = cfg_start_byte_time;
                debt_wr_data = {DEBT_WORD_WIDTH{1'b0}};
                prio_wr_en = 1'b1;
                prio_wr_addr = init_addr_reg[QP_INDEX_WIDTH-1:0];
                prio_wr_data = 3'd0;
            end
            prefetch = 1'b0;
            next_rd_en = 1'b0;
            if (init_desc_reg) begin
                live_wr_en = 1'b1;
                live_wr_addr = init_addr_reg[DIW-1:0];
                live_wr_data = 1'b0;
                next_wr_en = 1'b1;
                next_wr_addr = init_addr_reg[DIW-1:0];
                next_wr_data = init_addr_reg[DIW-1:0] + 1'b1;
            end
            if (init_addr_reg == INIT_LAST) begin
                state_next = to_state(STATE_IDLE);
            end
        end
        state_reg[STATE_IDLE]: begin
            if (!nxt_ok_reg) begin
                // A slot emptied: the scan names the next event.
                if (scan_fresh) begin
                    nxt_from_scan = 1'b1;
                    nxt_ok_next = 1'b1;
                    nxt_any_next = scan_any;
                    nxt_start_next = scan_start;
                    nxt_addr_next = scan_addr;
                end
            end else if (!due_known) begin
                // Wait a cycle for the comparison.
            end else if (due) begin
                // Serve the next event's slot: its head and tail are read.
                raise_next = 1'b1;
                busy_clr_next = 1'b1;
                state_next = to_state(STATE_HEAD);
            end else if (hd_valid && (!hd_catch_up || (eg_at_hd_reg && eg_caught_up))) begin
                // Take the command (its QP's word is read).
                hd_pop = 1'b1;
                div_start = hd_touches && hd_rate_valid;
                // Only a packet's GCRA reads the QP's words at the take;
                // they wait a cycle unless read a cycle early.
                state_next = hd_touches && hd_send && !qp_read_early_reg ? to_state(STATE_TAKE_WAIT) : to_state(STATE_TAKE);
            end
        end
        state_reg[STATE_TAKE_WAIT]: begin
            // The QP's words cross the die (the RAMs' output registers).
            state_next = to_state(STATE_TAKE);
        end
        state_reg[STATE_TAKE]: begin
            // The QP's word is on the RAM's output: into the GCRA.
            raise_next = 1'b1;
            raise_cand_next = now_reg >> SLOT_SHIFT;
            step_next = 3'd0;
            if (!cmd_send_reg) begin
                state_next = cmd_rate_valid_reg ? to_state(STATE_RATE) : to_state(STATE_SETTLE);
            end else begin
                state_next = cmd_full_reg ? to_state(STATE_DROP) : to_state(STATE_GCRA);
            end
        end
        state_reg[STATE_GCRA]: begin
            // Step 4: eligible and base' (into the placement); 5: gap_ready';
            // 6: the slot (its old tail read); the slot's start next. A
            // re-time reads the newest packet's descriptor at step 0 (its
            // QP and live bit registered at 3, judged at 4) and moves it
            // at 6 if it waits, its time is earlier and a descriptor is free.
            if (step_reg == GCRA_PLACE_STEP) begin
                if (!retime_reg || (rt_ok_reg && rt_moves_reg && !pool_full_reg)) begin
                    // The QP's new debt, the packet's descriptor.
                    debt_wr_en = 1'b1;
                    state_next = to_state(STATE_INSERT);
                    if (retime_reg) begin
                        // The old descriptor goes stale.
                        live_wr_en = 1'b1;
                        live_wr_addr = word_wait_desc_reg;
                        live_wr_data = 1'b0;
                    end
                end else begin
                    state_next = to_state(STATE_IDLE);
                end
            end
        end
        state_reg[STATE_INSERT]: begin
            // The slot's old tail is on the tail RAM's output.
            prefetch = 1'b0;
            next_rd_en = 1'b0;
            free_head_next = free_next_reg;
            free_next_ok_next = 1'b0;
            free_set = 1'b1;
            held_next = held_reg + 1'b1;
            live_wr_en = 1'b1;
            head_wr_en = !ins_busy_reg;
            tail_wr_en = 1'b1;
            link_pend_next = ins_busy_reg;
            busy_set_next = 1'b1;
            // The next event: this slot if it starts first (the higher
            // level on a tie).
            if (!nxt_any_reg || place_before_next
                || (place_at_next && ins_addr_reg[SB+1:SB] > nxt_addr_reg[SB+1:SB])) begin
                nxt_from_insert = 1'b1;
                nxt_any_next = 1'b1;
                nxt_start_next = place_start;
                nxt_addr_next = ins_addr_reg;
            end
            state_next = cmd_rate_valid_reg && !retime_reg ? to_state(STATE_RATE) : to_state(STATE_IDLE);
        end
        state_reg[STATE_RATE]: begin
            // The new byte time; then the re-time, once it is written.
            if (div_done_reg) begin
                bt_wr_en = 1'b1;
                state_next = to_state(STATE_SETTLE);
            end
        end
        state_reg[STATE_RETIME_READ]: begin
            // The QP's words are read again (with the new byte time).
            state_next = to_state(STATE_RETIME_WAIT);
        end
        state_reg[STATE_RETIME_WAIT]: begin
            state_next = to_state(STATE_RETIME_TAKE);
        end
        state_reg[STATE_RETIME_TAKE]: begin
            // On the RAMs' outputs: into the GCRA, from the prior debt.
            step_next = 3'd0;
            state_next = to_state(STATE_GCRA);
        end
        state_reg[STATE_DROP]: begin
            // After every release due by now, and the new rate.
            if (eg_caught_up && eg_room) begin
                drop_valid = 1'b1;
                state_next = cmd_rate_valid_reg ? to_state(STATE_RATE) : to_state(STATE_IDLE);
            end
        end
        state_reg[STATE_HEAD]: begin
            // The slot's head and tail are on the RAMs' outputs.
            srv_head_next = head_rd_data;
            state_next = nxt_addr_reg[SB+1:SB] == 2'd0 ? to_state(STATE_POP_A) : to_state(STATE_CASCADE_A);
        end
        state_reg[STATE_POP_A]: begin
            // Serve the head: read its descriptor and link. It keeps its
            // count in held_reg until the egress gives it back (the pool
            // rule keeps the egress within DESC_COUNT).
            prefetch = 1'b0;
            next_rd_en = 1'b1;
            next_rd_addr = srv_head_reg;
            rel_reserve = 1'b1;
            state_next = to_state(STATE_POP_B);
        end
        state_reg[STATE_POP_B]: begin
            // Its link is read (on link_q next cycle); it goes onto the
            // free list, no longer live.
            live_wr_en = 1'b1;
            live_wr_addr = srv_head_reg;
            live_wr_data = 1'b0;
            prefetch = 1'b0;
            next_rd_en = 1'b0;
            next_wr_en = 1'b1;
            next_wr_addr = srv_head_reg;
            next_wr_data = free_head_reg;
            free_head_next = srv_head_reg;
            free_next_next = free_head_reg;
            free_next_ok_next = 1'b1;
            free_set = 1'b1;
            if (srv_head_reg == srv_tail_reg) begin
                // The slot is empty: the scan names the next event.
                nxt_ok_next = 1'b0;
                state_next = to_state(STATE_IDLE);
            end else begin
                state_next = to_state(STATE_POP_C);
            end
        end
        state_reg[STATE_POP_C]: begin
            // The slot's next head, from the link's register.
            srv_head_next = link_q;
            state_next = due_known && due ? to_state(STATE_POP_A) : to_state(STATE_POP_STOP);
        end
        state_reg[STATE_POP_STOP]: begin
            // Packets left, not yet due: the slot keeps its new head.
            head_wr_en = 1'b1;
            head_wr_addr = srv_addr_reg;
            head_wr_data = srv_head_reg;
            busy_back_next = 1'b1;
            state_next = to_state(STATE_IDLE);
        end
        state_reg[STATE_CASCADE_A]: begin
            prefetch = 1'b0;
            next_rd_en = 1'b1;
            next_rd_addr = srv_head_reg;
            state_next = to_state(STATE_CASCADE_B);
        end
        state_reg[STATE_CASCADE_B]: begin
            // The head's link is on the link RAM's output (its descriptor,
            // kept going down, on the descriptor RAM's at place step 0).
            prefetch = 1'b0;
            next_rd_en = 1'b0;
            state_next = to_state(STATE_CASCADE_PLACE);
            step_next = 3'd0;
        end
        state_reg[STATE_CASCADE_PLACE]: begin
            // Unlink the head; place it (its slot at step 3: the
            // descriptor left its RAM's output register at step 0).
            prefetch = 1'b0;
            next_rd_en = 1'b0;
            if (step_reg == 3'd0) begin
                // The slot's next head, from the link's register.
                srv_head_next = link_q;
                head_wr_en = cas_desc_reg != srv_tail_reg;
                head_wr_addr = srv_addr_reg;
                head_wr_data = link_q;
            end else if (step_reg == CASCADE_PLACE_STEP) begin
                state_next = to_state(STATE_CASCADE_INSERT);
            end
        end
        state_reg[STATE_CASCADE_INSERT]: begin
            // Down to its new slot. The served slot, if not empty, is
            // still the next event (the inserted one starts no earlier,
            // and is lower on a tie).
            head_wr_en = !ins_busy_reg;
            head_wr_data = cas_desc_reg;
            tail_wr_en = 1'b1;
            link_pend_next = ins_busy_reg;
            busy_set_next = 1'b1;
            if (cas_desc_reg == srv_tail_reg) begin
                nxt_ok_next = 1'b0;
            end else begin
                busy_back_next = 1'b1;
            end
            state_next = to_state(STATE_IDLE);
        end
        state_reg[STATE_SETTLE]: begin
            // A time advance's raise of the pointer, or a rate's write of
            // the byte time, lands; after a rate, the re-time.
            state_next = cmd_rate_valid_reg ? to_state(STATE_RETIME_READ) : to_state(STATE_IDLE);
        end
        default: state_next = to_state(STATE_IDLE);
    endcase
    held_next = held_next - {{(DIW-1){1'b0}}, eg_freed};
end

// The descriptor an insert links: a new one, or the one cascading.
wire [DIW-1:0] ins_desc = state_reg[STATE_CASCADE_INSERT] ? cas_desc_reg : free_head_reg;

always @(posedge clk) begin
    state_reg <= state_next;
    step_reg <= step_next;
    raise_reg <= raise_next;
    raise_cand_reg <= raise_cand_next;
    raise2_reg <= raise_reg;
    raise2_cand_reg <= raise_cand_reg;
    raise2_gt_reg <= raise_cand_reg > pointer_reg;
    if (raise2_reg && raise2_gt_reg) begin
        pointer_reg <= raise2_cand_reg;
    end
    // No packet goes ahead of a QP's earlier one still to come down or back
    // from parking (SPEC.md §7.4): levels 0 and 1 end with the pointer's
    // slot of the level above; level 2 with the pointer's half of it (the
    // next half's end on the last slot of one), where packets are parked.
    limit_reg <= {((pointer_reg >> (2 * SB)) + 64'd1) | HALF_SPAN, (pointer_reg >> SB) | HORIZON_SPAN,
                  pointer_reg | HORIZON_SPAN};
    nxt_ok_reg <= nxt_ok_next;
    nxt_any_reg <= nxt_any_next;
    nxt_start_reg <= nxt_start_next;
    nxt_addr_reg <= nxt_addr_next;
    busy_clr_reg <= busy_clr_next;
    busy_set_reg <= busy_set_next;
    busy_back_reg <= busy_back_next;
    busy_clr_addr_reg <= nxt_addr_reg;
    busy_set_addr_reg <= ins_addr_reg;
    busy_back_addr_reg <= srv_addr_reg;
    // The scan's outputs hold once the busy bits stay put long enough.
    // The scan starts over as busy bits change.
    scan_age_reg <= busy_pending ? 3'd0 : (scan_age_reg == SCAN_LATENCY ? scan_age_reg : scan_age_reg + 1'b1);
    free_head_reg <= free_head_next;
    free_next_reg <= free_land_reg && !free_set ? link_q : free_next_next;
    free_next_ok_reg <= (free_land_reg && !free_set) || free_next_ok_next;
    free_fetch_reg <= prefetch;
    free_land_reg <= free_fetch_reg && !free_set;
    held_reg <= held_next;
    pool_full_reg <= held_next == DESC_FULL;
    srv_head_reg <= srv_head_next;
    link_pend_reg <= link_pend_next;
    rel_in_valid_reg <= state_reg[STATE_POP_A];
    rel_in_valid2_reg <= rel_in_valid_reg;
    place_from_cascade_reg <= state_reg[STATE_CASCADE_B] || state_reg[STATE_CASCADE_PLACE];
    slot_rd_place_reg <= (state_reg[STATE_GCRA] && step_reg == GCRA_PLACE_STEP - 3'd1)
        || (state_reg[STATE_CASCADE_PLACE] && step_reg == CASCADE_PLACE_STEP - 3'd1);
    le_hd_reg <= nxt_from_scan ? scan_start <= hd_slot
               : (nxt_from_insert ? place_start <= hd_slot : nxt_start_reg <= hd_slot);
    le_wm_reg <= nxt_from_scan ? scan_start <= wm_slot
               : (nxt_from_insert ? place_start <= wm_slot : nxt_start_reg <= wm_slot);
    cmp_known_reg <= !hd_pop_or_load;
    hd_after_wm_reg <= hd_time > watermark_reg;

    if (state_reg[STATE_INIT]) begin
        init_addr_reg <= init_addr_reg + 1'b1;
        if (init_addr_reg == QP_COUNT - 1) begin
            init_qp_reg <= 1'b0;
        end
        if (init_addr_reg == DESC_COUNT - 1) begin
            init_desc_reg <= 1'b0;
        end
    end
    desc_rd_en_reg <= state_next[STATE_POP_A] || state_next[STATE_CASCADE_A]
        || state_reg[STATE_RETIME_TAKE];
    desc_rd_wait_reg <= state_next[STATE_GCRA];
    desc_wr_en_reg <= state_next[STATE_INSERT];
    qp_rd_retime_reg <= state_next[STATE_RETIME_READ];
    // The QP RAMs read every cycle (their words are registered at the
    // take and the re-time's take only); the re-time reads its own QP.
    qp_rd_addr_reg <= state_next[STATE_RETIME_READ] ? cmd_qp_reg : cmd0_next[CMD_QP_LSB +: QP_INDEX_WIDTH];
    qp_read_early_reg <= hd_valid && !hd_pop_or_load && !qp_rd_retime_reg && !state_reg[STATE_INIT]
        && !((bt_wr_en_reg || debt_wr_en_reg) && qp_wr_addr_reg == hd_qp)
        && !(prio_wr_en_reg && prio_wr_addr_reg == hd_qp);
    prio_wr_en_reg <= prio_wr_en;
    prio_wr_addr_reg <= prio_wr_addr;
    prio_wr_data_reg <= prio_wr_data;
    if (state_reg[STATE_IDLE] && nxt_ok_reg && due_known && !due && hd_valid) begin
        eg_now_reg <= hd_after_wm_reg ? hd_time : watermark_reg;
    end
    eg_loaded_reg <= state_reg[STATE_IDLE] && nxt_ok_reg && due_known && !due && hd_valid && !hd_pop_or_load;
    eg_at_hd_reg <= eg_loaded_reg && !hd_pop_or_load;
    drain_all_reg <= flush && !cmd_waiting && state_reg[STATE_IDLE] && nxt_ok_reg && !nxt_any_reg;
    pause_go_reg <= hd_pop && hd_pause;
    if (hd_pop) begin
        pause_enable_reg <= hd_pause_enable;
        pause_quanta_reg <= hd_pause_quanta;
    end
    bt_wr_en_reg <= bt_wr_en;
    debt_wr_en_reg <= debt_wr_en;
    qp_wr_addr_reg <= qp_wr_addr;
    bt_wr_data_reg <= bt_wr_data;
    debt_wr_data_reg <= debt_wr_data;
    if (state_reg[STATE_TAKE] || state_reg[STATE_RETIME_TAKE]) begin
        bt_word_reg <= bt_rd_data;
        prio_word_reg <= prio_rd_data;
        debt_base_reg <= state_reg[STATE_RETIME_TAKE] ? rd_prev_base : rd_base;
        debt_len_reg <= state_reg[STATE_RETIME_TAKE] ? rd_prev_len : rd_len;
        debt_gap_reg <= state_reg[STATE_RETIME_TAKE] ? rd_prev_gap_ready : rd_gap_ready;
        word_len_reg <= rd_len;
        word_gap_ready_reg <= rd_gap_ready;
        word_wait_ok_reg <= rd_wait_ok;
        word_wait_desc_reg <= rd_wait_desc;
    end
    if (hd_pop) begin
        retime_reg <= 1'b0;
        cmd_qp_reg <= hd_qp;
        cmd_rate_valid_reg <= hd_touches && hd_rate_valid;
        cmd_send_reg <= hd_touches && hd_send;
        cmd_len_reg <= hd_len;
        cmd_full_reg <= pool_full_reg;
        now_reg <= hd_after_wm_reg ? hd_time : watermark_reg;
        watermark_reg <= hd_after_wm_reg ? hd_time : watermark_reg;
    end
    if (state_reg[STATE_IDLE] && nxt_ok_reg && due) begin
        srv_addr_reg <= nxt_addr_reg;
    end
    if (state_reg[STATE_HEAD]) begin
        srv_tail_reg <= tail_rd_data;
    end
    // The GCRA's outputs hold from step 4 (eligible, base') and 5
    // (gap_ready') until its inputs change.
    if (state_reg[STATE_GCRA] && step_reg == GCRA_PLACE_STEP) begin
        elig_reg <= gcra_eligible;
    end
    // The re-time: the packet keeps its length; its descriptor (RAM
    // outputs registered first) still holds it; its time moves.
    if (state_reg[STATE_RETIME_TAKE]) begin
        retime_reg <= 1'b1;
    end
    if (state_reg[STATE_GCRA] && retime_reg && step_reg == 3'd0) begin
        cmd_len_reg <= word_len_reg;
    end
    rt_live_reg <= live_rd_data;
    rt_desc_qp_reg <= desc_qp;
    rt_ok_reg <= word_wait_ok_reg && rt_live_reg && rt_desc_qp_reg == cmd_qp_reg;
    // Earlier only: a cut never delays a packet already handed over.
    rt_moves_reg <= gcra_gap_after < word_gap_ready_reg;
    if (state_reg[STATE_CASCADE_B]) begin
        cas_desc_reg <= srv_head_reg;
    end
    if ((state_reg[STATE_GCRA] && step_reg == GCRA_PLACE_STEP)
        || (state_reg[STATE_CASCADE_PLACE] && step_reg == CASCADE_PLACE_STEP)) begin
        ins_addr_reg <= place_addr;
        ins_busy_reg <= place_addr_busy;
    end
    if (state_reg[STATE_INSERT] || state_reg[STATE_CASCADE_INSERT]) begin
        link_addr_reg <= tail_rd_data;
        link_data_reg <= ins_desc;
    end

    if (rst) begin
        state_reg <= to_state(STATE_INIT);
        init_addr_reg <= 32'd0;
        init_qp_reg <= 1'b1;
        init_desc_reg <= 1'b1;
        bt_wr_en_reg <= 1'b0;
        debt_wr_en_reg <= 1'b0;
        desc_rd_en_reg <= 1'b0;
        desc_rd_wait_reg <= 1'b0;
        desc_wr_en_reg <= 1'b0;
        qp_rd_retime_reg <= 1'b0;
        qp_read_early_reg <= 1'b0;
        retime_reg <= 1'b0;
        watermark_reg <= 64'd0;
        pointer_reg <= 64'd0;
        raise_reg <= 1'b0;
        raise2_reg <= 1'b0;
        nxt_ok_reg <= 1'b0;
        nxt_any_reg <= 1'b0;
        scan_age_reg <= 3'd0;
        busy_clr_reg <= 1'b0;
        busy_set_reg <= 1'b0;
        busy_back_reg <= 1'b0;
        free_head_reg <= {DIW{1'b0}};
        free_next_ok_reg <= 1'b0;
        free_fetch_reg <= 1'b0;
        free_land_reg <= 1'b0;
        held_reg <= {(DIW+1){1'b0}};
        pool_full_reg <= 1'b0;
        slot_rd_place_reg <= 1'b0;
        place_from_cascade_reg <= 1'b0;
        link_pend_reg <= 1'b0;
        rel_in_valid_reg <= 1'b0;
        rel_in_valid2_reg <= 1'b0;
        cmp_known_reg <= 1'b0;
        prio_wr_en_reg <= 1'b0;
        eg_now_reg <= 64'd0;
        eg_loaded_reg <= 1'b0;
        eg_at_hd_reg <= 1'b0;
        drain_all_reg <= 1'b0;
        pause_go_reg <= 1'b0;
    end
end

// The division: one quotient bit per cycle, then rounded up (the byte
// time never undercuts the rate).
wire [32:0] div_shifted = {div_rem_reg[31:0], BYTE_TIME_NUMERATOR[div_bit_reg]};
wire        div_fits = div_shifted >= {1'b0, div_divisor_reg};
/* verilator lint_off UNUSEDSIGNAL */
wire [42:0] div_quot_up = div_quot_reg + {42'd0, div_rem_reg != 33'd0};
/* verilator lint_on UNUSEDSIGNAL */

// The datapath's registers do not wait for div_start (the controller's
// decision): out of a run they reload a division's start on the head
// command's rate every cycle; a start takes it (none comes in a run or its
// rounding cycle: the controller waits for the result; an assertion).
always @(posedge clk) begin
    if (div_run_reg) begin
        div_rem_reg <= div_fits ? div_shifted - {1'b0, div_divisor_reg} : div_shifted;
        div_quot_reg <= {div_quot_reg[41:0], div_fits};
        div_bit_reg <= div_bit_reg - 1'b1;
    end else begin
        div_rem_reg <= 33'd0;
        div_quot_reg <= 43'd0;
        div_divisor_reg <= hd_rate < MIN_PACED_RATE ? MIN_PACED_RATE : hd_rate;
        div_bit_reg <= 6'd42;
    end
    if (!div_run_reg && !div_done_reg) begin
        div_byte_time_reg <= div_quot_up[39:0];
    end
    if (div_start) begin
        div_run_reg <= 1'b1;
        div_done_reg <= 1'b0;
    end else if (div_run_reg) begin
        if (div_bit_reg == 6'd0) begin
            div_run_reg <= 1'b0;
        end
    end else if (!div_done_reg) begin
        div_done_reg <= 1'b1;
    end
    if (rst) begin
        div_run_reg <= 1'b0;
        div_done_reg <= 1'b1;
    end
end

pacer_gcra gcra_inst (
    .clk(clk),
    .base(debt_base_reg),
    .len(debt_len_reg),
    .gap_ready(debt_gap_reg),
    .byte_time(bt_word_reg),
    .now(now_reg << FRAC_BITS),
    .burst_bytes(cfg_burst_bytes),
    .min_gap(cfg_min_gap),
    .eligible(gcra_eligible),
    .base_after(gcra_base_after),
    .gap_ready_after(gcra_gap_after)
);

pacer_place #(
    .SLOT_COUNT(SLOT_COUNT),
    .SLOT_SHIFT(SLOT_SHIFT)
) place_inst (
    .clk(clk),
    .eligible(place_from_cascade_reg ? cas_eligible : gcra_eligible),
    .pointer(pointer_reg),
    .limit(limit_reg),
    .busy(slot_busy_reg),
    .addr(place_addr),
    .addr_busy(place_addr_busy),
    .start(place_start),
    .other(nxt_start_reg),
    .before_other(place_before_next),
    .at_other(place_at_next)
);

pacer_scan #(
    .SLOT_COUNT(SLOT_COUNT)
) scan_inst (
    .clk(clk),
    .busy(slot_busy_reg),
    .pointer(pointer_reg),
    .any(scan_any),
    .start(scan_start),
    .addr(scan_addr)
);

pacer_egress #(
    .QP_INDEX_WIDTH(QP_INDEX_WIDTH),
    .DESC_COUNT(DESC_COUNT)
) egress_inst (
    .clk(clk),
    .rst(rst),
    .line_byte_time(cfg_line_byte_time),
    .now(eg_now_reg),
    .drain_all(drain_all_reg),
    .reserve(rel_reserve),
    .in_valid(rel_in_valid2_reg),
    .in_qp(desc_qp),
    .in_len(desc_len),
    .in_eligible(desc_eligible),
    .in_priority(desc_prio),
    .in_live(live_rd_data),
    .drop_valid(drop_valid),
    .drop_time(now_reg),
    .drop_qp(cmd_qp_reg),
    .drop_len(cmd_len_reg),
    .pause_valid(pause_go_reg),
    .pause_time(now_reg),
    .pause_enable(pause_enable_reg),
    .pause_quanta(pause_quanta_reg),
    .freed(eg_freed),
    .caught_up(eg_caught_up),
    .room(eg_room),
    .idle(eg_idle),
    .next_valid(eg_next_valid),
    .next_tick(eg_next_tick),
    .held_eligible(cas_eligible),
    .m_rel_valid(m_rel_valid),
    .m_rel_ready(m_rel_ready),
    .m_rel_time(m_rel_time),
    .m_rel_qp(m_rel_qp),
    .m_rel_len(m_rel_len),
    .m_rel_drop(m_rel_drop)
);

// RAMs: QP byte times and debts, descriptors and links (in 4-bit
// columns), live bits, slot heads and tails.
qp_state_ram #(.WIDTH(40), .DEPTH(QP_COUNT), .ADDR_WIDTH(QP_INDEX_WIDTH), .COLUMN_WIDTH(4), .OUTPUT_REG(1))
bt_ram_inst (
    .clk(clk), .rd_en(1'b1), .rd_addr(qp_rd_addr_reg), .rd_data(bt_rd_data),
    .wr_en(bt_wr_en_reg), .wr_addr(qp_wr_addr_reg), .wr_data(bt_wr_data_reg)
);
qp_state_ram #(.WIDTH(DEBT_WORD_WIDTH), .DEPTH(QP_COUNT), .ADDR_WIDTH(QP_INDEX_WIDTH), .COLUMN_WIDTH(4),
               .OUTPUT_REG(1)) debt_ram_inst (
    .clk(clk), .rd_en(1'b1), .rd_addr(qp_rd_addr_reg), .rd_data(debt_rd_data),
    .wr_en(debt_wr_en_reg), .wr_addr(qp_wr_addr_reg), .wr_data(debt_wr_data_reg)
);
qp_state_ram #(.WIDTH(DESC_WORD_WIDTH), .DEPTH(DESC_COUNT), .ADDR_WIDTH(DIW), .COLUMN_WIDTH(4), .OUTPUT_REG(1))
desc_ram_inst (
    .clk(clk), .rd_en(desc_rd_en_reg), .rd_addr(desc_rd_addr), .rd_data(desc_rd_data),
    .wr_en(desc_wr_en_reg), .wr_addr(free_head_reg), .wr_data({cmd_qp_reg, cmd_len_reg, elig_reg, prio_word_reg})
);
qp_state_ram #(.WIDTH(3), .DEPTH(QP_COUNT), .ADDR_WIDTH(QP_INDEX_WIDTH), .COLUMN_WIDTH(4), .OUTPUT_REG(1))
prio_ram_inst (
    .clk(clk), .rd_en(1'b1), .rd_addr(qp_rd_addr_reg), .rd_data(prio_rd_data),
    .wr_en(prio_wr_en_reg), .wr_addr(prio_wr_addr_reg), .wr_data(prio_wr_data_reg)
);
qp_state_ram #(.WIDTH(1), .DEPTH(DESC_COUNT), .ADDR_WIDTH(DIW), .OUTPUT_REG(1)) live_ram_inst (
    .clk(clk), .rd_en(desc_rd_en_reg), .rd_addr(desc_rd_addr), .rd_data(live_rd_data),
    .wr_en(live_wr_en), .wr_addr(live_wr_addr), .wr_data(live_wr_data)
);
qp_state_ram #(.WIDTH(DIW), .DEPTH(DESC_COUNT), .ADDR_WIDTH(DIW), .COLUMN_WIDTH(4), .OUTPUT_REG(1))
next_ram_inst (
    .clk(clk), .rd_en(next_rd_en), .rd_addr(next_rd_addr), .rd_data(link_q),
    .wr_en(next_wr_en), .wr_addr(next_wr_addr), .wr_data(next_wr_data)
);
qp_state_ram #(.WIDTH(DIW), .DEPTH(4 * SLOT_COUNT), .ADDR_WIDTH(SB + 2)) head_ram_inst (
    .clk(clk), .rd_en(slot_rd_en), .rd_addr(slot_rd_addr), .rd_data(head_rd_data),
    .wr_en(head_wr_en), .wr_addr(head_wr_addr), .wr_data(head_wr_data)
);
qp_state_ram #(.WIDTH(DIW), .DEPTH(4 * SLOT_COUNT), .ADDR_WIDTH(SB + 2)) tail_ram_inst (
    .clk(clk), .rd_en(slot_rd_en), .rd_addr(slot_rd_addr), .rd_data(tail_rd_data),
    .wr_en(tail_wr_en), .wr_addr(tail_wr_addr), .wr_data(ins_desc)
);

wire cmd_waiting = hd_valid || cmd1_valid_reg;
assign active = !state_reg[STATE_IDLE] || !nxt_ok_reg || due || cmd_waiting || link_pend_reg || !eg_idle
                || pause_go_reg;
assign busy = active || held_reg != 0;
// The first of the wheel's next event and the egress's next leave.
wire [63:0] wheel_next_tick = nxt_start_reg << SLOT_SHIFT;
assign next_busy_valid = !active && (nxt_any_reg || eg_next_valid);
assign next_busy_time = nxt_any_reg && (!eg_next_valid || wheel_next_tick < eg_next_tick) ? wheel_next_tick
                                                                                         : eg_next_tick;

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
reg [63:0] last_release_reg = 64'd0;
always @(posedge clk) begin
    if (rst) begin
        last_release_reg <= 64'd0;
    end else if (m_rel_valid && m_rel_ready && !m_rel_drop) begin
        last_release_reg <= m_rel_time;
        assert (m_rel_time >= last_release_reg)
        else metaroce_assertion_failed("roce_pacer: a release before the previous one");
    end
    if (!rst) begin
        assert ($onehot(state_reg))
        else metaroce_assertion_failed("roce_pacer: the controller's state is not one-hot");
        assert (!(due_known && hd_valid && hd_after_wm_reg != (hd_time > watermark_reg)))
        else metaroce_assertion_failed("roce_pacer: the head's compare with the watermark out of step");
        assert (!(div_start && (div_run_reg || !div_done_reg)))
        else metaroce_assertion_failed("roce_pacer: a division started before the last one's result");
        // No user reads a RAM's word in the cycle it is written (its read
        // is then undefined, qp_state_ram.v): the QP words are not taken
        // while written (they are read every cycle), nor is a link, a
        // slot's head or tail, or a descriptor read while written. (INIT's
        // last write can land in the first IDLE cycle; that cycle takes no
        // command, as nxt_ok_reg is 0 out of INIT until the scan sets it.)
        assert (!(hd_pop && (bt_wr_en_reg || debt_wr_en_reg)))
        else metaroce_assertion_failed("roce_pacer: a command taken while its QP's words are written");
        assert (!(next_rd_en && next_wr_en && next_rd_addr == next_wr_addr))
        else metaroce_assertion_failed("roce_pacer: a link read while written");
        assert (!(slot_rd_en && ((head_wr_en && head_wr_addr == slot_rd_addr)
                                 || (tail_wr_en && tail_wr_addr == slot_rd_addr))))
        else metaroce_assertion_failed("roce_pacer: a slot's head or tail read while written");
        assert (!(desc_rd_en_reg && ((desc_wr_en_reg && free_head_reg == desc_rd_addr)
                                     || (live_wr_en && live_wr_addr == desc_rd_addr))))
        else metaroce_assertion_failed("roce_pacer: a descriptor read while written");
        assert (place_from_cascade_reg == (state_reg[STATE_CASCADE_PLACE] || state_reg[STATE_CASCADE_INSERT]))
        else metaroce_assertion_failed("roce_pacer: the placement's input register out of step with the state");
        assert (slot_rd_place_reg == ((state_reg[STATE_GCRA] && step_reg == GCRA_PLACE_STEP)
                                      || (state_reg[STATE_CASCADE_PLACE] && step_reg == CASCADE_PLACE_STEP)))
        else metaroce_assertion_failed("roce_pacer: the slot RAMs' read of the placement out of step");
        assert (state_reg[STATE_INIT] || qp_rd_addr_reg == (qp_rd_retime_reg ? cmd_qp_reg : hd_qp))
        else metaroce_assertion_failed("roce_pacer: the QP RAMs' read address out of step with its command");
        assert (pool_full_reg == (held_reg == DESC_FULL))
        else metaroce_assertion_failed("roce_pacer: the pool-full register differs from the count");
        assert (held_reg <= DESC_FULL)
        else metaroce_assertion_failed("roce_pacer: more packets held than descriptors");
        assert (held_reg != 0 || slot_busy_reg == 0)
        else metaroce_assertion_failed("roce_pacer: a busy slot with no packet held");
        // The next event stays from the placement's last stage to the
        // insert, so its comparisons there hold.
        assert (!state_reg[STATE_INSERT] || place_before_next == (place_start < nxt_start_reg)
                && place_at_next == (place_start == nxt_start_reg))
        else metaroce_assertion_failed("roce_pacer: the insert's comparisons with the next event out of step");
        assert (!(state_reg[STATE_INSERT] && !free_next_ok_reg))
        else metaroce_assertion_failed("roce_pacer: an insert before the free list's next entry was fetched");
    end
end
`endif

endmodule

`resetall
