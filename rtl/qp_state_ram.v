// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Per-QP state RAM: one word per QP, one registered read port and one write
 * port (simple dual port, as block RAM maps it). A read in the same cycle as
 * a write to the same address returns an undefined word (X in simulation
 * with the assertions on): users forward around it. (Promising the old
 * word costs a register and a multiplexer behind every block RAM: Yosys
 * emulates it, and the ECP5 DP16KD gives no such promise between its two
 * ports.)
 *
 * COLUMN_WIDTH 0 keeps the word in one memory. Otherwise the word is built
 * of memories COLUMN_WIDTH bits wide (the last one padded): the pacer's wide
 * words in 4-bit columns, each column of up to 4096 words one ECP5 DP16KD in
 * its 4K x 4 mode, so the read data leaves the block RAM with no multiplexer
 * behind it (a deeper, narrower mode needs one) and reaches its first
 * register in time.
 *
 * OUTPUT_REG 1 registers each column's read data once more, beside its
 * block RAM (as the DP16KD's own output register would): a word spread
 * over many block RAMs across the die reaches its user a cycle later, but
 * the RAM's slow clock-to-data (4.26 ns on ECP5) and the long route to the
 * user are in different cycles.
 *
 * With METAROCE_ECP5 defined (ci/timing.sh), a column one ECP5 DP16KD
 * holds with OUTPUT_REG 1 is that DP16KD, instantiated, with its own
 * output register (REGMODE_B "OUTREG"): Yosys maps an inferred RAM with no
 * output register and leaves the register in the fabric, where the placer
 * pulls it towards its users, so the 4.26 ns clock-to-data and the route
 * across the die stay in one cycle; the DP16KD's register gives its data
 * 0.72 ns after the clock. Same cycles, same undefined collisions.
 *
 * | port     | width      | meaning                                   |
 * |----------|------------|-------------------------------------------|
 * | rd_en    | 1          | read `rd_addr`; the word is on `rd_data`   |
 * |          |            | from the next cycle (OUTPUT_REG 1: the one |
 * |          |            | after) until the next read's               |
 * | wr_en    | 1          | write `wr_data` to `wr_addr`               |
 */
module qp_state_ram #(
    parameter WIDTH = 64,
    parameter DEPTH = 1024,
    parameter ADDR_WIDTH = DEPTH > 1 ? $clog2(DEPTH) : 1,
    parameter COLUMN_WIDTH = 0,
    parameter OUTPUT_REG = 0
) (
    input  wire                  clk,
    input  wire                  rd_en,
    input  wire [ADDR_WIDTH-1:0] rd_addr,
    output wire [WIDTH-1:0]      rd_data,
    input  wire                  wr_en,
    input  wire [ADDR_WIDTH-1:0] wr_addr,
    input  wire [WIDTH-1:0]      wr_data
);

localparam COLUMN = COLUMN_WIDTH > 0 ? COLUMN_WIDTH : WIDTH;
localparam COLUMNS = (WIDTH + COLUMN - 1) / COLUMN;
`ifdef METAROCE_ECP5
// The DP16KD's data width for a column (1, 2, 4, 9 or 18 bits: 16K, 8K, 4K,
// 2K or 1K words) and its address's unused low bits.
localparam DP16KD_SHIFT = COLUMN <= 1 ? 0 : COLUMN <= 2 ? 1 : COLUMN <= 4 ? 2 : COLUMN <= 9 ? 3 : 4;
localparam DP16KD_WIDTH = DP16KD_SHIFT == 3 ? 9 : DP16KD_SHIFT == 4 ? 18 : 1 << DP16KD_SHIFT;
localparam USE_DP16KD = OUTPUT_REG != 0 && COLUMN <= 18 && DEPTH <= (16384 >> DP16KD_SHIFT)
                        && ADDR_WIDTH + DP16KD_SHIFT <= 14;
`else
localparam USE_DP16KD = 0;
`endif

wire [COLUMN*COLUMNS-1:0] wr_data_padded = {{(COLUMN*COLUMNS-WIDTH){1'b0}}, wr_data};
// The last column's padding bits are written 0 and never read.
/* verilator lint_off UNUSEDSIGNAL */
wire [COLUMN*COLUMNS-1:0] rd_data_padded;
/* verilator lint_on UNUSEDSIGNAL */
assign rd_data = rd_data_padded[WIDTH-1:0];

genvar c;
generate
    for (c = 0; c < COLUMNS; c = c + 1) begin : g_column
`ifdef METAROCE_ECP5
        if (USE_DP16KD) begin : g_dp16kd
            // Port A writes, port B reads (x18: ADA1..0 are byte enables).
            wire [13:0] wr_ad = ({{(14 - ADDR_WIDTH){1'b0}}, wr_addr} << DP16KD_SHIFT)
                                | (DP16KD_WIDTH == 18 ? 14'd3 : 14'd0);
            wire [13:0] rd_ad = {{(14 - ADDR_WIDTH){1'b0}}, rd_addr} << DP16KD_SHIFT;
            wire [17:0] di = {{(18 - COLUMN){1'b0}}, wr_data_padded[COLUMN*c +: COLUMN]};
            wire [17:0] do_b;
            DP16KD #(
                .DATA_WIDTH_A(DP16KD_WIDTH), .DATA_WIDTH_B(DP16KD_WIDTH),
                .REGMODE_A("NOREG"), .REGMODE_B("OUTREG"), .RESETMODE("SYNC"),
                .WRITEMODE_A("NORMAL"), .WRITEMODE_B("NORMAL"),
                .CSDECODE_A("0b000"), .CSDECODE_B("0b000"), .GSR("DISABLED")
            ) ram_inst (
                .CLKA(clk), .CEA(wr_en), .WEA(wr_en), .OCEA(1'b1), .RSTA(1'b0),
                .CSA0(1'b0), .CSA1(1'b0), .CSA2(1'b0),
                .ADA0(wr_ad[0]), .ADA1(wr_ad[1]), .ADA2(wr_ad[2]), .ADA3(wr_ad[3]), .ADA4(wr_ad[4]),
                .ADA5(wr_ad[5]), .ADA6(wr_ad[6]), .ADA7(wr_ad[7]), .ADA8(wr_ad[8]), .ADA9(wr_ad[9]),
                .ADA10(wr_ad[10]), .ADA11(wr_ad[11]), .ADA12(wr_ad[12]), .ADA13(wr_ad[13]),
                .DIA0(di[0]), .DIA1(di[1]), .DIA2(di[2]), .DIA3(di[3]), .DIA4(di[4]), .DIA5(di[5]),
                .DIA6(di[6]), .DIA7(di[7]), .DIA8(di[8]), .DIA9(di[9]), .DIA10(di[10]), .DIA11(di[11]),
                .DIA12(di[12]), .DIA13(di[13]), .DIA14(di[14]), .DIA15(di[15]), .DIA16(di[16]),
                .DIA17(di[17]),
                .CLKB(clk), .CEB(rd_en), .WEB(1'b0), .OCEB(1'b1), .RSTB(1'b0),
                .CSB0(1'b0), .CSB1(1'b0), .CSB2(1'b0),
                .ADB0(rd_ad[0]), .ADB1(rd_ad[1]), .ADB2(rd_ad[2]), .ADB3(rd_ad[3]), .ADB4(rd_ad[4]),
                .ADB5(rd_ad[5]), .ADB6(rd_ad[6]), .ADB7(rd_ad[7]), .ADB8(rd_ad[8]), .ADB9(rd_ad[9]),
                .ADB10(rd_ad[10]), .ADB11(rd_ad[11]), .ADB12(rd_ad[12]), .ADB13(rd_ad[13]),
                .DIB0(1'b0), .DIB1(1'b0), .DIB2(1'b0), .DIB3(1'b0), .DIB4(1'b0), .DIB5(1'b0),
                .DIB6(1'b0), .DIB7(1'b0), .DIB8(1'b0), .DIB9(1'b0), .DIB10(1'b0), .DIB11(1'b0),
                .DIB12(1'b0), .DIB13(1'b0), .DIB14(1'b0), .DIB15(1'b0), .DIB16(1'b0), .DIB17(1'b0),
                .DOB0(do_b[0]), .DOB1(do_b[1]), .DOB2(do_b[2]), .DOB3(do_b[3]), .DOB4(do_b[4]),
                .DOB5(do_b[5]), .DOB6(do_b[6]), .DOB7(do_b[7]), .DOB8(do_b[8]), .DOB9(do_b[9]),
                .DOB10(do_b[10]), .DOB11(do_b[11]), .DOB12(do_b[12]), .DOB13(do_b[13]),
                .DOB14(do_b[14]), .DOB15(do_b[15]), .DOB16(do_b[16]), .DOB17(do_b[17])
            );
            assign rd_data_padded[COLUMN*c +: COLUMN] = do_b[COLUMN-1:0];
        end
`endif
        if (!USE_DP16KD) begin : g_inferred
            // no_rw_check: Yosys maps the RAM as it is, with no logic that
            // makes a colliding read return the old word.
            (* no_rw_check *)
            reg [COLUMN-1:0] mem [0:DEPTH-1];
            reg [COLUMN-1:0] rd_data_reg;
            always @(posedge clk) begin
                if (rd_en) begin
`ifdef METAROCE_ASSERTIONS
                    // Checked in simulation: X (Verilator --x-assign unique: a
                    // seeded value), so that no user can lean on either word.
                    rd_data_reg <= wr_en && rd_addr == wr_addr ? {COLUMN{1'bx}} : mem[rd_addr];
`else
                    rd_data_reg <= mem[rd_addr];
`endif
                end
                if (wr_en) begin
                    mem[wr_addr] <= wr_data_padded[COLUMN*c +: COLUMN];
                end
            end
            if (OUTPUT_REG != 0) begin : g_output_reg
                reg [COLUMN-1:0] rd_out_reg;
                always @(posedge clk) begin
                    rd_out_reg <= rd_data_reg;
                end
                assign rd_data_padded[COLUMN*c +: COLUMN] = rd_out_reg;
            end else begin : g_no_output_reg
                assign rd_data_padded[COLUMN*c +: COLUMN] = rd_data_reg;
            end
        end
    end
endgenerate

endmodule

`resetall
