// SPDX-License-Identifier: MIT
//
// Included inside a module body: carry-save sums of 66-bit terms that
// comparisons take their signs from (pacer_gcra.v, pacer_place.v, the
// reaction point's C compares in dcqcn_rp.v). One carry chain, after
// levels of XOR and majority; a narrower sum takes its own sign bit and
// synthesis drops the bits above it.

// One carry-save level: a + b + c + carry_in (mod 2^66) as {carry, sum},
// whose own sum is the total; carry_in takes the carries' free low bit.
function [131:0] csa3(input [65:0] a, input [65:0] b, input [65:0] c, input carry_in);
    begin
        csa3 = {(a[64:0] & b[64:0]) | (a[64:0] & c[64:0]) | (b[64:0] & c[64:0]), carry_in, a ^ b ^ c};
    end
endfunction

// a + b + c + carry_in (mod 2^66): one level, then one carry chain. The
// level is written out as it was before csa3: through csa3 the logic is
// the same, but Yosys names the pacer's cells anew, which alone moves its
// placement (docs/timing.md).
function [65:0] csa3_sum(input [65:0] a, input [65:0] b, input [65:0] c, input carry_in);
    begin
        csa3_sum = (a ^ b ^ c) + {(a[64:0] & b[64:0]) | (a[64:0] & c[64:0]) | (b[64:0] & c[64:0]), carry_in};
    end
endfunction
