// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Test-only model of the ECP5 DP16KD block RAM, in the subset that
 * rtl/qp_state_ram.v's METAROCE_ECP5 form uses: port A writes, port B
 * reads, both of one width (1, 2, 4, 9 or 18 bits), chip selects tied low
 * with CSDECODE "0b000", no resets. Yosys ships only a blackbox of the
 * primitive; this follows Lattice TN1264 (ECP5 Memory Usage Guide): the
 * word address is AD[13:S] for a width of 2^S bits (x9: S = 3, x18: S = 4,
 * where ADA[1:0] enable the write of DIA[8:0] and DIA[17:9]); data is in
 * DI/DO's low bits; CE enables a port's clock, OCE the output register
 * (REGMODE "OUTREG"), which gives the word a cycle after the RAM's latch.
 * Anything else stops the simulation, so no test leans on an unmodelled
 * mode.
 */
module DP16KD #(
    parameter DATA_WIDTH_A = 18,
    parameter DATA_WIDTH_B = 18,
    parameter REGMODE_A = "NOREG",
    parameter REGMODE_B = "NOREG",
    parameter RESETMODE = "SYNC",
    parameter WRITEMODE_A = "NORMAL",
    parameter WRITEMODE_B = "NORMAL",
    parameter CSDECODE_A = "0b000",
    parameter CSDECODE_B = "0b000",
    parameter GSR = "ENABLED"
) (
    input  wire DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9,
    input  wire DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0,
    input  wire ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
    input  wire CEA, OCEA, CLKA, WEA, RSTA, CSA2, CSA1, CSA0,
    output wire DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9,
    output wire DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0,
    input  wire DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9,
    input  wire DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0,
    input  wire ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
    input  wire CEB, OCEB, CLKB, WEB, RSTB, CSB2, CSB1, CSB0,
    output wire DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9,
    output wire DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);

localparam SHIFT = DATA_WIDTH_A == 1 ? 0 : DATA_WIDTH_A == 2 ? 1 : DATA_WIDTH_A == 4 ? 2
                 : DATA_WIDTH_A == 9 ? 3 : 4;

wire [17:0] dia = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9,
                   DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
wire [13:0] ada = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0};
wire [13:0] adb = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};

reg [17:0] mem [0:16383];
reg [17:0] latch_b = 18'd0, out_b = 18'd0;
wire [17:0] dob = REGMODE_B == "OUTREG" ? out_b : latch_b;
assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9,
        DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = dob;
assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9,
        DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = 18'd0;

integer i;
initial begin
    // Said, so that a test knows the primitive is in use.
    $display("DP16KD model: x%0d, REGMODE_B %0s", DATA_WIDTH_A, REGMODE_B);
    for (i = 0; i < 16384; i = i + 1) mem[i] = 18'd0;
    if (DATA_WIDTH_A != DATA_WIDTH_B || !(DATA_WIDTH_A == 1 || DATA_WIDTH_A == 2 || DATA_WIDTH_A == 4
                                          || DATA_WIDTH_A == 9 || DATA_WIDTH_A == 18)
        || REGMODE_A != "NOREG" || CSDECODE_A != "0b000" || CSDECODE_B != "0b000") begin
        $display("FATAL: DP16KD model: a mode it does not model");
        $finish;
    end
end

always @(posedge CLKA) begin
    if ({CSA2, CSA1, CSA0} != 3'b000 || RSTA) begin
        $display("FATAL: DP16KD model: port A's chip select or reset used");
        $finish;
    end
    if (CEA && WEA) begin
        if (DATA_WIDTH_A == 18) begin
            if (ada[0]) mem[ada[13:SHIFT]][8:0] <= dia[8:0];
            if (ada[1]) mem[ada[13:SHIFT]][17:9] <= dia[17:9];
        end else begin
            mem[ada[13:SHIFT]] <= dia & ((18'd1 << DATA_WIDTH_A) - 18'd1);
        end
    end
end

always @(posedge CLKB) begin
    if ({CSB2, CSB1, CSB0} != 3'b000 || RSTB || (CEB && WEB)) begin
        $display("FATAL: DP16KD model: port B's chip select, reset or write used");
        $finish;
    end
    if (CEB) begin
        latch_b <= mem[adb[13:SHIFT]];
    end
    if (OCEB) begin
        out_b <= latch_b;
    end
end

endmodule

`resetall
