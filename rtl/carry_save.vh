// SPDX-License-Identifier: MIT
//
// Included inside a module body: the carry-save sum of three 66-bit terms
// that the pacer's comparisons take their signs from (pacer_gcra.v,
// pacer_place.v). One carry chain, after one level of XOR and majority.

// a + b + c + carry_in (mod 2^66), carry-save: carry_in in the carries'
// free low bit.
function [65:0] csa3_sum(input [65:0] a, input [65:0] b, input [65:0] c, input carry_in);
    begin
        csa3_sum = (a ^ b ^ c) + {(a[64:0] & b[64:0]) | (a[64:0] & c[64:0]) | (b[64:0] & c[64:0]), carry_in};
    end
endfunction
