// SPDX-License-Identifier: MIT
// One step of the AES-128 key expansion (FIPS-197 5.2): round key r from round key r-1 and
// Rcon[r]. Combinational; the engine runs it next to the rounds, one step per cycle, so no
// schedule is stored and a new key needs no set-up time. Byte order as scu_aes_ctr_round.
module scu_aes_ctr_keyexp (
    input  logic [127:0] rk,
    input  logic [7:0]   rcon,
    output logic [127:0] next
);
  logic [31:0] t;  // SubWord(RotWord(w3)) ^ Rcon, byte 0 in bits 7:0

  for (genvar i = 0; i < 4; i++) begin : g_sbox
    // RotWord: byte i of the word is byte i+1 of w3 (bytes 12..15 of the round key)
    scu_aes_ctr_sbox u_sbox (.x(rk[8*(12 + (i + 1) % 4) +: 8]), .y(t[8*i +: 8]));
  end

  always_comb begin
    next[31:0]   = rk[31:0] ^ t ^ {24'h0, rcon};
    next[63:32]  = rk[63:32] ^ next[31:0];
    next[95:64]  = rk[95:64] ^ next[63:32];
    next[127:96] = rk[127:96] ^ next[95:64];
  end
endmodule
