// SPDX-License-Identifier: MIT
// Set-associative TLB of the memory-virtualisation path (SCENIC paper section 7.2: the driver
// fills the TLB on ibv_reg_mr, LRU replacement, misses handled by the driver).
//
// Key = (id, vpn): id = protection domain / memory region id, vpn = va >> PAGE_SHIFT
// (PAGE_SHIFT 12 = 4 KiB or 21 = 2 MiB pages). Set index = vpn[SET_W-1:0] ^ id[SET_W-1:0] (id
// bits beyond ID_W read as 0), so the same virtual page of different regions spreads over sets.
//
// Lookup path (one lookup per cycle, pipelined, 2 cycles from s_lookup handshake to m_resp_valid):
//   stage 1: s_lookup_* registered;
//   stage 2: the set is compared against the entry array (registers), the response is
//            registered: hit -> m_resp_pa = {ppn, va[PAGE_SHIFT-1:0]}, miss -> m_resp_pa = 0.
//   A hit makes its way the set's most recently used. A miss records (id, vpn) in the
//   outstanding-miss table (MISS_DEPTH entries) unless it is already there (dedup: N lookups of
//   one missing page give one miss request); with the table full the miss is not recorded
//   (stat_miss_drop; the requester retries after its miss response anyway).
//   Table entries are emitted on m_miss_* (lowest index first, through an output register, so
//   the stream is AXI-stable) and stay outstanding until a fill or invalidate of that key.
//   A driver that cannot resolve a miss must send INV_PAGE for it, or the entry stays busy.
// Driver side (s_fill_*, always ready, one op per cycle; an op stalls the lookup stage for that
// cycle so fills and lookups never update a set in the same cycle):
//   OP_FILL     (0): insert/update (id, vpn) -> ppn; an existing entry is updated in place,
//                    else the first invalid way, else the LRU way (stat_evict when it was valid);
//                    the way becomes MRU; the outstanding miss of that key is retired.
//   OP_INV_PAGE (1): invalidate (id, vpn) and its outstanding miss.
//   OP_INV_ID   (2): invalidate every entry and outstanding miss of id (ibv_dereg_mr).
//   OP_FLUSH    (3): invalidate everything.
// LRU: exact, per set one age per way (0 = MRU .. WAYS-1 = LRU), a permutation at all times.
// Counters saturate at all-ones. Entries live in registers (SETS*WAYS <= 1024): a BRAM version
// needs a read stage plus forwarding of the stage-2 LRU/fill writes, not done here.
module scenic_tlb #(
    parameter int unsigned SETS       = 16,
    parameter int unsigned WAYS       = 4,
    parameter int unsigned PAGE_SHIFT = 12,
    parameter int unsigned ID_W       = 16,
    parameter int unsigned VA_W       = 48,
    parameter int unsigned PA_W       = 48,
    parameter int unsigned TAG_W      = 8,
    parameter int unsigned MISS_DEPTH = 4,
    parameter int unsigned CNT_W      = 32
) (
    input  logic                        clk,
    input  logic                        rst,

    // lookup requests
    input  logic [ID_W-1:0]             s_lookup_id,
    input  logic [VA_W-1:0]             s_lookup_va,
    input  logic [TAG_W-1:0]            s_lookup_tag,
    input  logic                        s_lookup_valid,
    output logic                        s_lookup_ready,

    // lookup responses, in request order
    output logic                        m_resp_hit,
    output logic [PA_W-1:0]             m_resp_pa,
    output logic [TAG_W-1:0]            m_resp_tag,
    output logic                        m_resp_valid,
    input  logic                        m_resp_ready,

    // miss requests to the driver
    output logic [ID_W-1:0]             m_miss_id,
    output logic [VA_W-PAGE_SHIFT-1:0]  m_miss_vpn,
    output logic                        m_miss_valid,
    input  logic                        m_miss_ready,

    // fill / invalidate from the driver
    input  logic [1:0]                  s_fill_op,
    input  logic [ID_W-1:0]             s_fill_id,
    input  logic [VA_W-PAGE_SHIFT-1:0]  s_fill_vpn,
    input  logic [PA_W-PAGE_SHIFT-1:0]  s_fill_ppn,
    input  logic                        s_fill_valid,
    output logic                        s_fill_ready,

    // statistics
    output logic [CNT_W-1:0]            stat_hit,
    output logic [CNT_W-1:0]            stat_miss,
    output logic [CNT_W-1:0]            stat_evict,
    output logic [CNT_W-1:0]            stat_miss_req,
    output logic [CNT_W-1:0]            stat_miss_drop
);

  localparam int unsigned VPN_W = VA_W - PAGE_SHIFT;
  localparam int unsigned PPN_W = PA_W - PAGE_SHIFT;
  localparam int unsigned SET_W = (SETS > 1) ? $clog2(SETS) : 1;
  localparam int unsigned WAY_W = (WAYS > 1) ? $clog2(WAYS) : 1;
  localparam int unsigned MT_W  = (MISS_DEPTH > 1) ? $clog2(MISS_DEPTH) : 1;
  localparam int unsigned ENT   = SETS * WAYS;

  localparam logic [1:0] OP_FILL     = 2'd0;
  localparam logic [1:0] OP_INV_PAGE = 2'd1;
  localparam logic [1:0] OP_INV_ID   = 2'd2;
  localparam logic [1:0] OP_FLUSH    = 2'd3;

  if (PAGE_SHIFT != 12 && PAGE_SHIFT != 21) begin : g_bad_page
    $error("PAGE_SHIFT must be 12 (4 KiB) or 21 (2 MiB)");
  end
  if (SETS < 1 || SETS > 1024 || (SETS & (SETS - 1)) != 0) begin : g_bad_sets
    $error("SETS must be a power of two 1..1024");
  end
  if (WAYS < 1 || WAYS > 8) begin : g_bad_ways
    $error("WAYS must be 1..8");
  end
  if (ENT > 1024) begin : g_bad_ent
    $error("SETS*WAYS must be <= 1024 (register array)");
  end
  if (ID_W < 1 || ID_W > 32) begin : g_bad_id_w
    $error("ID_W must be 1..32");
  end
  if (VA_W > 64 || VPN_W < SET_W) begin : g_bad_va_w
    $error("VA_W must be <= 64 and leave at least log2(SETS) vpn bits");
  end
  if (PA_W > 64 || PA_W <= PAGE_SHIFT) begin : g_bad_pa_w
    $error("PA_W must be PAGE_SHIFT+1..64");
  end
  if (TAG_W < 1 || TAG_W > 32) begin : g_bad_tag_w
    $error("TAG_W must be 1..32");
  end
  if (MISS_DEPTH < 1 || MISS_DEPTH > 16) begin : g_bad_miss_depth
    $error("MISS_DEPTH must be 1..16");
  end
  if (CNT_W < 1 || CNT_W > 64) begin : g_bad_cnt_w
    $error("CNT_W must be 1..64");
  end

  // ---------------------------------------------------------------- state
  // entry array (datapath: id/vpn/ppn not reset, only the valid bits and the ages)
  logic [ENT-1:0]        ent_v_q, ent_v_d;
  logic [ENT*ID_W-1:0]   ent_id_q, ent_id_d;
  logic [ENT*VPN_W-1:0]  ent_vpn_q, ent_vpn_d;
  logic [ENT*PPN_W-1:0]  ent_ppn_q, ent_ppn_d;
  logic [ENT*WAY_W-1:0]  age_q, age_d;

  // outstanding-miss table
  logic [MISS_DEPTH-1:0]       mt_v_q, mt_v_d;
  logic [MISS_DEPTH-1:0]       mt_sent_q, mt_sent_d;
  logic [MISS_DEPTH*ID_W-1:0]  mt_id_q, mt_id_d;
  logic [MISS_DEPTH*VPN_W-1:0] mt_vpn_q, mt_vpn_d;

  // stage 1: request register
  logic             req_v_q;
  logic [ID_W-1:0]  req_id_q;
  logic [VA_W-1:0]  req_va_q;
  logic [TAG_W-1:0] req_tag_q;

  // stage 2: response register
  logic             resp_v_q;
  logic             resp_hit_q;
  logic [PA_W-1:0]  resp_pa_q;
  logic [TAG_W-1:0] resp_tag_q;

  // miss output register
  logic             mo_v_q;
  logic [ID_W-1:0]  mo_id_q;
  logic [VPN_W-1:0] mo_vpn_q;

  logic [CNT_W-1:0] c_hit_q, c_miss_q, c_evict_q, c_mreq_q, c_mdrop_q;

  // ---------------------------------------------------------------- helpers
  function automatic logic [SET_W-1:0] set_of(input logic [ID_W-1:0] id,
                                              input logic [VPN_W-1:0] vpn);
    logic [SET_W-1:0] s;
    for (int i = 0; i < SET_W; i++) begin
      s[i] = (SETS > 1) ? (vpn[i] ^ ((i < ID_W) ? id[i % ID_W] : 1'b0)) : 1'b0;
    end
    set_of = s;
  endfunction

  function automatic logic [CNT_W-1:0] sat_inc(input logic [CNT_W-1:0] c);
    sat_inc = (c == '1) ? c : c + 1'b1;
  endfunction

  // ---------------------------------------------------------------- control
  logic             resp_free, look_go, fill_go, mo_load;
  logic [VPN_W-1:0] req_vpn;
  logic [SET_W-1:0] req_set, fill_set;
  logic [WAYS-1:0]  req_match, fill_match;
  logic             req_hit, fill_hit;
  logic [WAY_W-1:0] req_way, fill_way, victim;
  logic             victim_found;
  logic [MISS_DEPTH-1:0] mt_dup_vec;
  logic             mt_dup, mt_free_found, mt_pend_found;
  logic [MT_W-1:0]  mt_free, mt_pend;

  assign resp_free      = !resp_v_q || m_resp_ready;
  assign fill_go        = s_fill_valid;
  assign look_go        = req_v_q && resp_free && !fill_go;
  assign s_lookup_ready = !req_v_q || look_go;
  assign s_fill_ready   = 1'b1;
  assign mo_load        = (!mo_v_q || m_miss_ready) && mt_pend_found;

  // Set reads: each gathers one set's ways with constant-index slices selected by an AND-OR over
  // the sets (no variable-index part-selects of the whole array, which synthesise as barrel
  // shifters over SETS*WAYS*W bits).
  logic [WAYS-1:0]       rs_v, fs_v;
  logic [WAYS*ID_W-1:0]  rs_id, fs_id;
  logic [WAYS*VPN_W-1:0] rs_vpn, fs_vpn;
  logic [WAYS*PPN_W-1:0] rs_ppn;
  logic [WAYS*WAY_W-1:0] fs_age;

  always_comb begin
    req_vpn  = req_va_q[VA_W-1:PAGE_SHIFT];
    req_set  = set_of(req_id_q, req_vpn);
    fill_set = set_of(s_fill_id, s_fill_vpn);
    rs_v   = '0;
    rs_id  = '0;
    rs_vpn = '0;
    rs_ppn = '0;
    fs_v   = '0;
    fs_id  = '0;
    fs_vpn = '0;
    fs_age = '0;
    for (int st = 0; st < SETS; st++) begin
      if (req_set == SET_W'(st)) begin
        rs_v   = ent_v_q[st*WAYS +: WAYS];
        rs_id  = ent_id_q[st*WAYS*ID_W +: WAYS*ID_W];
        rs_vpn = ent_vpn_q[st*WAYS*VPN_W +: WAYS*VPN_W];
        rs_ppn = ent_ppn_q[st*WAYS*PPN_W +: WAYS*PPN_W];
      end
      if (fill_set == SET_W'(st)) begin
        fs_v   = ent_v_q[st*WAYS +: WAYS];
        fs_id  = ent_id_q[st*WAYS*ID_W +: WAYS*ID_W];
        fs_vpn = ent_vpn_q[st*WAYS*VPN_W +: WAYS*VPN_W];
        fs_age = age_q[st*WAYS*WAY_W +: WAYS*WAY_W];
      end
    end
  end

  // lookup compare (stage 2)
  always_comb begin
    req_hit = 1'b0;
    req_way = '0;
    for (int w = 0; w < WAYS; w++) begin
      req_match[w] = rs_v[w] && rs_id[w*ID_W +: ID_W] == req_id_q &&
                     rs_vpn[w*VPN_W +: VPN_W] == req_vpn;
      if (req_match[w] && !req_hit) begin
        req_hit = 1'b1;
        req_way = WAY_W'(w);
      end
    end
  end

  // fill compare and victim choice
  always_comb begin
    fill_hit     = 1'b0;
    fill_way     = '0;
    victim       = '0;
    victim_found = 1'b0;
    for (int w = 0; w < WAYS; w++) begin
      fill_match[w] = fs_v[w] && fs_id[w*ID_W +: ID_W] == s_fill_id &&
                      fs_vpn[w*VPN_W +: VPN_W] == s_fill_vpn;
      if (fill_match[w] && !fill_hit) begin
        fill_hit = 1'b1;
        fill_way = WAY_W'(w);
      end
      if (!fs_v[w] && !victim_found) begin
        victim_found = 1'b1;
        victim       = WAY_W'(w);
      end
    end
    if (!victim_found) begin
      for (int w = 0; w < WAYS; w++) begin
        if (fs_age[w*WAY_W +: WAY_W] == WAY_W'(WAYS - 1)) begin
          victim = WAY_W'(w);
        end
      end
    end
  end

  // outstanding-miss table search
  always_comb begin
    mt_dup        = 1'b0;
    mt_free_found = 1'b0;
    mt_pend_found = 1'b0;
    mt_free       = '0;
    mt_pend       = '0;
    for (int i = 0; i < MISS_DEPTH; i++) begin
      mt_dup_vec[i] = mt_v_q[i] && mt_id_q[i*ID_W +: ID_W] == req_id_q &&
                      mt_vpn_q[i*VPN_W +: VPN_W] == req_vpn;
      mt_dup = mt_dup | mt_dup_vec[i];
      if (!mt_v_q[i] && !mt_free_found) begin
        mt_free_found = 1'b1;
        mt_free       = MT_W'(i);
      end
      if (mt_v_q[i] && !mt_sent_q[i] && !mt_pend_found) begin
        mt_pend_found = 1'b1;
        mt_pend       = MT_W'(i);
      end
    end
  end

  // next state of the arrays. Written per entry with constant indices (each entry compares its
  // own set/way against the write target): linear logic, no variable-index writes for synthesis.
  logic             touch, fill_wr;
  logic [SET_W-1:0] ts;
  logic [WAY_W-1:0] tw, ta;
  logic             mt_alloc;

  always_comb begin
    fill_wr  = fill_go && s_fill_op == OP_FILL;
    touch    = fill_wr || (!fill_go && look_go && req_hit);
    ts       = fill_go ? fill_set : req_set;
    tw       = fill_go ? (fill_hit ? fill_way : victim) : req_way;
    ta       = '0;                                  // age of the touched way
    for (int e = 0; e < ENT; e++) begin
      if (SET_W'(e / WAYS) == ts && WAY_W'(e % WAYS) == tw) ta = age_q[e*WAY_W +: WAY_W];
    end
    mt_alloc = !fill_go && look_go && !req_hit && !mt_dup && mt_free_found;
  end

  always_comb begin
    ent_v_d   = ent_v_q;
    ent_id_d  = ent_id_q;
    ent_vpn_d = ent_vpn_q;
    ent_ppn_d = ent_ppn_q;
    age_d     = age_q;
    mt_v_d    = mt_v_q;
    mt_sent_d = mt_sent_q;
    mt_id_d   = mt_id_q;
    mt_vpn_d  = mt_vpn_q;

    for (int e = 0; e < ENT; e++) begin
      // set e / WAYS, way e % WAYS
      if (fill_go) begin
        unique case (s_fill_op)
          OP_FILL: begin
            if (SET_W'(e / WAYS) == fill_set && WAY_W'(e % WAYS) == tw) begin
              ent_v_d[e] = 1'b1;
              ent_id_d[e*ID_W +: ID_W]    = s_fill_id;
              ent_vpn_d[e*VPN_W +: VPN_W] = s_fill_vpn;
              ent_ppn_d[e*PPN_W +: PPN_W] = s_fill_ppn;
            end
          end
          OP_INV_PAGE: begin
            if (SET_W'(e / WAYS) == fill_set && fill_match[e % WAYS]) ent_v_d[e] = 1'b0;
          end
          OP_INV_ID: begin
            if (ent_id_q[e*ID_W +: ID_W] == s_fill_id) ent_v_d[e] = 1'b0;
          end
          default: begin // OP_FLUSH
            ent_v_d[e] = 1'b0;
          end
        endcase
      end
      // LRU: the touched way becomes 0, the ways younger than it age by one
      if (touch && SET_W'(e / WAYS) == ts) begin
        if (WAY_W'(e % WAYS) == tw) begin
          age_d[e*WAY_W +: WAY_W] = '0;
        end else if (age_q[e*WAY_W +: WAY_W] < ta) begin
          age_d[e*WAY_W +: WAY_W] = age_q[e*WAY_W +: WAY_W] + 1'b1;
        end
      end
    end

    for (int i = 0; i < MISS_DEPTH; i++) begin
      if (mo_load && mt_pend == MT_W'(i)) begin
        mt_sent_d[i] = 1'b1;
      end
      // retire outstanding misses covered by a driver op
      if (fill_go && (s_fill_op == OP_FLUSH ||
                      (mt_id_q[i*ID_W +: ID_W] == s_fill_id &&
                       (s_fill_op == OP_INV_ID || mt_vpn_q[i*VPN_W +: VPN_W] == s_fill_vpn)))) begin
        mt_v_d[i] = 1'b0;
      end
      if (mt_alloc && mt_free == MT_W'(i)) begin
        mt_v_d[i]                 = 1'b1;
        mt_sent_d[i]              = 1'b0;
        mt_id_d[i*ID_W +: ID_W]    = req_id_q;
        mt_vpn_d[i*VPN_W +: VPN_W] = req_vpn;
      end
    end
  end

  // ---------------------------------------------------------------- registers
  always_ff @(posedge clk) begin
    ent_id_q  <= ent_id_d;
    ent_vpn_q <= ent_vpn_d;
    ent_ppn_q <= ent_ppn_d;
    mt_id_q   <= mt_id_d;
    mt_vpn_q  <= mt_vpn_d;

    if (s_lookup_valid && s_lookup_ready) begin
      req_id_q  <= s_lookup_id;
      req_va_q  <= s_lookup_va;
      req_tag_q <= s_lookup_tag;
    end
    if (look_go) begin
      resp_hit_q <= req_hit;
      resp_pa_q  <= req_hit ? {rs_ppn[32'(req_way)*PPN_W +: PPN_W], req_va_q[PAGE_SHIFT-1:0]}
                            : '0;
      resp_tag_q <= req_tag_q;
    end
    if (mo_load) begin
      mo_id_q  <= mt_id_q[32'(mt_pend)*ID_W +: ID_W];
      mo_vpn_q <= mt_vpn_q[32'(mt_pend)*VPN_W +: VPN_W];
    end

    if (rst) begin
      ent_v_q   <= '0;
      for (int e = 0; e < ENT; e++) begin
        age_q[e*WAY_W +: WAY_W] <= WAY_W'(e % WAYS);
      end
      mt_v_q    <= '0;
      mt_sent_q <= '0;
      req_v_q   <= 1'b0;
      resp_v_q  <= 1'b0;
      mo_v_q    <= 1'b0;
      c_hit_q   <= '0;
      c_miss_q  <= '0;
      c_evict_q <= '0;
      c_mreq_q  <= '0;
      c_mdrop_q <= '0;
    end else begin
      ent_v_q   <= ent_v_d;
      age_q     <= age_d;
      mt_v_q    <= mt_v_d;
      mt_sent_q <= mt_sent_d;
      if (s_lookup_valid && s_lookup_ready) begin
        req_v_q <= 1'b1;
      end else if (look_go) begin
        req_v_q <= 1'b0;
      end
      if (look_go) begin
        resp_v_q <= 1'b1;
      end else if (m_resp_ready) begin
        resp_v_q <= 1'b0;
      end
      if (mo_load) begin
        mo_v_q <= 1'b1;
      end else if (m_miss_ready) begin
        mo_v_q <= 1'b0;
      end
      if (look_go && req_hit) c_hit_q <= sat_inc(c_hit_q);
      if (look_go && !req_hit) c_miss_q <= sat_inc(c_miss_q);
      if (look_go && !req_hit && !mt_dup && !mt_free_found) c_mdrop_q <= sat_inc(c_mdrop_q);
      if (mo_load) c_mreq_q <= sat_inc(c_mreq_q);
      if (fill_go && s_fill_op == OP_FILL && !fill_hit && !victim_found) begin
        c_evict_q <= sat_inc(c_evict_q);
      end
    end
  end

  assign m_resp_valid   = resp_v_q;
  assign m_resp_hit     = resp_hit_q;
  assign m_resp_pa      = resp_pa_q;
  assign m_resp_tag     = resp_tag_q;
  assign m_miss_valid   = mo_v_q;
  assign m_miss_id      = mo_id_q;
  assign m_miss_vpn     = mo_vpn_q;
  assign stat_hit       = c_hit_q;
  assign stat_miss      = c_miss_q;
  assign stat_evict     = c_evict_q;
  assign stat_miss_req  = c_mreq_q;
  assign stat_miss_drop = c_mdrop_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      // a key is resident at most once
      assert (!req_v_q || $countones(req_match) <= 1) else $error("duplicate TLB entry");
      assert (!fill_go || $countones(fill_match) <= 1) else $error("duplicate TLB entry");
    end
  end
`endif

endmodule
