// Sources of the parser, top first (verilator -f / yosys read_verilog).
rtl/roce_parser.v
rtl/crc32_lfsr.v
rtl/roce_opcode_decode.v
