// SPDX-License-Identifier: MIT
// One AES encryption round (FIPS-197 5.1): SubBytes, ShiftRows, MixColumns (not in the final
// round), AddRoundKey. Combinational. Byte i of the block (FIPS-197's in[i]) is bits 8i+7:8i;
// the state's row r, column c is byte 4c + r.
module scu_aes_ctr_round (
    input  logic [127:0] state,
    input  logic [127:0] round_key,
    input  logic         final_round,   // 1: no MixColumns (round 10)
    output logic [127:0] out
);
  logic [127:0] sub;      // SubBytes
  logic [127:0] shifted;  // ShiftRows
  logic [127:0] mixed;    // MixColumns

  for (genvar i = 0; i < 16; i++) begin : g_sbox
    scu_aes_ctr_sbox u_sbox (.x(state[8*i +: 8]), .y(sub[8*i +: 8]));
  end

  // multiplication by x (02) in GF(2^8)
  function automatic logic [7:0] xtime(input logic [7:0] a);
    xtime = {a[6:0], 1'b0} ^ (a[7] ? 8'h1b : 8'h00);
  endfunction

  always_comb begin
    // row r of column c comes from column (c + r) mod 4
    for (int c = 0; c < 4; c++) begin
      for (int r = 0; r < 4; r++) begin
        shifted[8*(4*c + r) +: 8] = sub[8*(4*((c + r) % 4) + r) +: 8];
      end
    end
    for (int c = 0; c < 4; c++) begin
      mixed[8*(4*c) +: 8] = xtime(shifted[8*(4*c) +: 8]) ^ xtime(shifted[8*(4*c+1) +: 8])
          ^ shifted[8*(4*c+1) +: 8] ^ shifted[8*(4*c+2) +: 8] ^ shifted[8*(4*c+3) +: 8];
      mixed[8*(4*c+1) +: 8] = shifted[8*(4*c) +: 8] ^ xtime(shifted[8*(4*c+1) +: 8])
          ^ xtime(shifted[8*(4*c+2) +: 8]) ^ shifted[8*(4*c+2) +: 8] ^ shifted[8*(4*c+3) +: 8];
      mixed[8*(4*c+2) +: 8] = shifted[8*(4*c) +: 8] ^ shifted[8*(4*c+1) +: 8]
          ^ xtime(shifted[8*(4*c+2) +: 8]) ^ xtime(shifted[8*(4*c+3) +: 8])
          ^ shifted[8*(4*c+3) +: 8];
      mixed[8*(4*c+3) +: 8] = xtime(shifted[8*(4*c) +: 8]) ^ shifted[8*(4*c) +: 8]
          ^ shifted[8*(4*c+1) +: 8] ^ shifted[8*(4*c+2) +: 8] ^ xtime(shifted[8*(4*c+3) +: 8]);
    end
    out = (final_round ? shifted : mixed) ^ round_key;
  end
endmodule
