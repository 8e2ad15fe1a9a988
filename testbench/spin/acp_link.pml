/*
 * The ACP link in Promela for SPIN: one token channel, both roles on each
 * side, and the link states around it (entangling with nonces and
 * incarnations, sessions, failure detection).
 *
 * Two sides, A (0) and B (1). A sends NTOK_A tokens to B and B sends NTOK_B
 * to A on the same channel, at the same time. Every record restates its
 * sender's whole channel state; the transitions are those of
 * hdl/layout/src/acp/machine.rs (hear), which hdl/src/acp/channel_machine.rs
 * implements. README.md next to this file says what is modelled and what is
 * abstracted; testbench/tests/nic/spin.rs runs the checks and the seeded bugs
 * (the BUG_* defines below: each restores a rule the link once had, or
 * drops one it needs).
 *
 * The state codes equal pendulum_layout::acp::{tx_state, rx_state} and the
 * opcodes pendulum_layout::acp::OP_*; testbench/tests/nic/spin.rs checks it.
 */

/* Sender-role states (pendulum_layout::acp::tx_state). */
#define TX_IDLE       0
#define TX_OFFER      1
#define TX_COMMIT     2
#define TX_REVERSE    3
#define TX_COMMIT_OFFER 4
/* Receiver-role states (pendulum_layout::acp::rx_state). */
#define RX_EXPECT     0
#define RX_TENTATIVE  1
#define RX_REJECT     2
/* Opcodes (pendulum_layout::acp::OP_*). */
#define OP_STATE      1
#define OP_OFFER      2
#define OP_ECHO       3
#define OP_ENTANGLE   4
/* Link states (pendulum_layout::acp::link_state). */
#define LS_DOWN       0
#define LS_ENTANGLING 1
#define LS_UP         2

/* The moves of the channel machine (pendulum_layout::acp::machine):
 * testbench/tests/nic/spin.rs puts definitions of SENDER_MOVE(from, to) and
 * RECEIVER_MOVE(from, to) before this file (true for the named moves of
 * each role), and the tables sender_next and receiver_next of
 * machine::hear over this model's inputs (filled at MACHINE_INIT in init);
 * every state change the model makes on hearing a record must be a named
 * move and the one the tables give (asserted in hear, see CHECK_MACHINE).
 * Run by hand without them, any change passes. */
#ifndef SENDER_MOVE
#define SENDER_MOVE(f, t)   1
#define RECEIVER_MOVE(f, t) 1
#endif

/* Bounds: tokens per direction and the fault budgets of one run. */
#ifndef NTOK_A
#define NTOK_A        2   /* tokens A sends to B */
#endif
#ifndef NTOK_B
#define NTOK_B        1   /* tokens B sends to A (0: one direction only) */
#endif
#ifndef MAX_LOSS
#define MAX_LOSS      1   /* records lost, or garbled so that the check fails */
#endif
#ifndef MAX_DAMAGE
#define MAX_DAMAGE    1   /* records damaged past the check, in one field, or of another channel */
#endif
#ifndef MAX_NOROOM
#define MAX_NOROOM    1   /* offers heard while the receiver has no room */
#endif
#ifndef MAX_RESETS
#define MAX_RESETS    1   /* host resets of a side's link state (either side, any time) */
#endif
#ifndef MAX_LOS
#define MAX_LOS       0   /* losses of signal on one side */
#endif
#ifndef MAX_CUTS
#define MAX_CUTS      0   /* cuts: both sides lose signal, everything in flight is lost */
#endif
#ifndef MAX_STALE
#define MAX_STALE     0   /* records of an earlier entanglement delivered again */
#endif
#ifndef MAX_DUP
#define MAX_DUP       0   /* records delivered twice */
#endif
#ifndef QS
#define QS            1   /* records in flight per direction */
#endif
#ifndef FAIL_AFTER
#define FAIL_AFTER    2   /* unheard records in a row that make an Up side re-entangle (ACP_FAIL_AFTER) */
#endif
#ifndef NONCES
#define NONCES        8   /* nonces drawn cycle through 1..NONCES: A the odd ones, B the even */
#endif
#ifndef MAX_SKIP
#define MAX_SKIP      0   /* slots in a row a side gives to other channels (0: every slot is this one's) */
#endif

#define A 0
#define B 1

/* A token is its number (1..3). A payload damaged past the check has the
 * CORRUPT bit; FOREIGN is a payload of another channel. The digest of a
 * payload is the payload itself (no CRC collisions). A result is RGOOD as
 * the responder produced it, RBAD damaged (values no payload has). The decision check of an echo
 * (digest E, result R) is X(E, R); a REVERSE states it with REV added. */
#define CORRUPT  8
#define FOREIGN  7
#define RGOOD    16
#define RBAD     32
#define DMGV     200
#define REV      64
#define EFOLD    128  /* state byte bit 7: the echo rides in an offer's check word */
#define X(e, r)  ((e) + (r))
#define NTOK(s)  ((s) == A -> NTOK_A : NTOK_B)
#define ALL(n)   ((1 << ((n) + 1)) - 2)

/* A record. ENTANGLE: k1 = nonce, k2 = nonce heard, st = incarnation.
 * Channel records: k1, k2 = the session (sender's nonce, receiver's nonce;
 * in the hardware they are mixed into the check word, so a record of
 * another session is not heard); st = the state byte
 * (pendulum_layout::acp::state_byte; bit 7, EFOLD, in an OFFER stating
 * TENTATIVE: the echo is folded into the check word, and f8/fk are that
 * echo); f8 =
 * payload bytes 0..4 (ECHO: digest; STATE: the proof of the last delivery);
 * fk = what an ECHO's receiver field is XORed with, the proof of the
 * sender's last delivery (in the hardware one field with the digest);
 * f12 = the decision check while COMMIT, COMMIT_OFFER or REVERSE (payload
 * bytes 4..8; folded into the check word of a COMMIT_OFFER's OFFER record);
 * body = OFFER: the payload; otherwise the result bytes. */
typedef Rec { byte op; byte k1; byte k2; byte st; byte f8; byte fk; byte f12; byte body };
chan to[2] = [QS] of { Rec };

/* Link state of each side (hdl: lstate, nonce, peer_nonce, heard_peer,
 * incarnation, peer_inc, heard_inc, bad_run). */
byte ls[2];
byte nonce[2];
byte pn[2];
bit  hp[2];
byte inc[2];
byte pinc[2];        /* the peer's incarnation at our last entanglement; 0 = none */
byte hinc[2];        /* the incarnation the peer states while entangling */
byte bad[2];
/* Sender role. */
byte ts[2];
bit  tb[2];
bit  hold[2];
bit  pready[2];      /* the last record heard would offer a payload loaded now (peer_ready) */
byte tok[2];
bit  nhold[2];       /* the next payload is held too (offered with the decision: COMMIT_OFFER) */
byte ntok[2];
byte auth[2];        /* decision check stated while COMMIT, COMMIT_OFFER or REVERSE */
byte ares[2];        /* the result of the echo auth was taken from */
byte key[2];         /* the proof last heard: an echo of our payload is its digest with this */
byte res[2];         /* result handed up at the confirmation */
/* Receiver role. */
byte rs[2];
bit  rb[2];
byte sto[2];         /* payload held tentatively, 0 if none */
byte rx_x[2];        /* decision check the peer must state to commit or reverse it */
byte px[2];          /* proof: the decision check of the last transfer delivered */
bit  pdue[2];        /* the peer was last heard behind us (waiting for our proof) */
bit  round[2];       /* which of payload/echo a record carries when both are due */
bit  pturn[2];       /* which of echo/proof, when both are due (tentative, the peer behind) */
byte nexttok[2] = 1;
#if MAX_STALE > 0 || MAX_DUP > 0
/* The last channel record each side sent, and the last it sent before it
 * re-entangled (what a stale replay carries). */
Rec last[2];
Rec old[2];
bit has_old[2];
#define REPLAY 1
#endif

/* Ghost state for the properties; index = the side that sent the tokens. */
byte delivered[2];
byte decided[2];
byte ret_nd[2];
byte ret_doubt[2];
byte final[2];       /* results handed up as final (applied exactly once) */
byte lastdel[2];

/* Slots: both sides send one record per slot, so neither runs ahead of the
 * other by more than one record (skew = records sent by A - by B, + 1).
 * Slots are given by event: a slot of an Up side may carry another
 * channel's record, so none of this one's, at most MAX_SKIP slots in a row
 * (the share of slots kept for restating every channel). */
byte skew = 1;
byte skips[2];       /* slots in a row side s gave to other channels */
#define may_send(s)  ((s) == A -> skew < 2 : skew > 0)
#define slot(s)      if :: (s) == A -> skew++ :: else -> skew-- fi

byte loss = MAX_LOSS;
byte dmg = MAX_DAMAGE;
byte noroom = MAX_NOROOM;
byte resets = MAX_RESETS;
byte loses = MAX_LOS;
byte cuts = MAX_CUTS;
byte stale = MAX_STALE;
byte dups = MAX_DUP;

/* Scratch, used only inside atomic steps. */
hidden Rec r;
hidden Rec junk;
hidden byte ht, htb, hr, hrb, hef, eb, x, ok, mbad;
hidden byte was_ts, was_rs;
#if defined(MACHINE_TABLES) && !defined(BUG_CONFIRM_WITHOUT_PROOF) && \
    !defined(BUG_UNCHECKED_DECISION) && !defined(BUG_STORE_BEFORE_SEEN) && \
    !defined(BUG_OFFER_ON_LOAD_AFTER_REJECT) && !defined(BUG_UNCHAINED_PROOF)
/* Every channel move is checked against the layout's machine (the tables
 * testbench/tests/nic/spin.rs generates from pendulum_layout::acp::machine::hear);
 * the seeded bugs that change a move are exempt. */
#define CHECK_MACHINE 1
hidden byte was_tb, was_rb, m_op, mbad_d, mbad_e;
hidden short s_idx, r_idx0, r_idx1;
#endif

/* Nothing left to send or settle, and both sides Up. */
#define finished (!hold[A] && !hold[B] && !nhold[A] && !nhold[B] && nexttok[A] > NTOK_A && nexttok[B] > NTOK_B && \
                  rs[A] != RX_TENTATIVE && rs[B] != RX_TENTATIVE && ls[A] == LS_UP && ls[B] == LS_UP)

#define clear_r  r.op = 0; r.k1 = 0; r.k2 = 0; r.st = 0; r.f8 = 0; r.fk = 0; r.f12 = 0; r.body = 0
#define copy_rec(d, s) d.op = s.op; d.k1 = s.k1; d.k2 = s.k2; d.st = s.st; d.f8 = s.f8; d.fk = s.fk; d.f12 = s.f12; d.body = s.body

/* A held token goes back to its sender's host. */
inline hand_back(s, doubt)
{
	assert((final[s] & (1 << tok[s])) == 0);   /* a final result stays final */
	if
	:: doubt -> ret_doubt[s] = ret_doubt[s] | (1 << tok[s])
	:: else ->
		assert((delivered[s] & (1 << tok[s])) == 0);   /* "not delivered" is true */
		ret_nd[s] = ret_nd[s] | (1 << tok[s])
	fi;
	hold[s] = 0;
	tok[s] = 0
}

/* The next payload goes back to its sender's host: never decided, so never delivered. */
inline hand_back_next(s)
{
	assert((delivered[s] & (1 << ntok[s])) == 0 && (final[s] & (1 << ntok[s])) == 0);
	ret_nd[s] = ret_nd[s] | (1 << ntok[s]);
	nhold[s] = 0;
	ntok[s] = 0
}

/* The next payload becomes the one held. */
inline promote(s)
{
	if
	:: !hold[s] && nhold[s] -> hold[s] = 1; tok[s] = ntok[s]; nhold[s] = 0; ntok[s] = 0
	:: else -> skip
	fi
}

inline zero_channel(s)
{
	/* A payload dropped here was never delivered: its sender must not hold a final result for it. */
	assert(sto[s] == 0 || (final[1 - s] & (1 << sto[s])) == 0);
	ts[s] = TX_IDLE; tb[s] = 0; auth[s] = 0; ares[s] = 0; key[s] = 0; pready[s] = 0;
	rs[s] = RX_EXPECT; rb[s] = 0; sto[s] = 0; rx_x[s] = 0; px[s] = 0; pdue[s] = 0
}

/* A new nonce and a new round of entangling (hdl: fresh). */
inline fresh(s)
{
	nonce[s] = nonce[s] + 2;
	if :: nonce[s] > NONCES -> nonce[s] = nonce[s] - NONCES :: else -> skip fi;
	hp[s] = 0;
	bad[s] = 0;
	ls[s] = LS_ENTANGLING;
#ifdef REPLAY
	if :: last[s].op != 0 -> copy_rec(old[s], last[s]); has_old[s] = 1 :: else -> skip fi
#endif
}

/* Side s's host posts its tokens in order, each as soon as the channel is
 * free of the last one and its result is handed up (hdl: load_ok). If the
 * last record heard would offer it (pready), it is offered at once: the
 * OFFER move, as on hearing that record again (machine::offers_on_load).
 * While one is held, the next may be posted beside it; a COMMIT then
 * offers it with the decision (machine::offers_next_on_load). With
 * LAZY_HOST the host may post the next one later, any time. */
inline load(s)
{
	if
	:: !hold[s] && nexttok[s] <= NTOK(s) -> hold[s] = 1; tok[s] = nexttok[s]; nexttok[s]++;
		if
		:: pready[s] && ts[s] == TX_IDLE -> ts[s] = TX_OFFER;
			assert(SENDER_MOVE(TX_IDLE, TX_OFFER))
		:: else -> skip
		fi
#ifndef NO_NEXT
	:: hold[s] && !nhold[s] && nexttok[s] <= NTOK(s) ->
		nhold[s] = 1; ntok[s] = nexttok[s]; nexttok[s]++;
		if
		:: ts[s] == TX_COMMIT -> ts[s] = TX_COMMIT_OFFER;
			assert(SENDER_MOVE(TX_COMMIT, TX_COMMIT_OFFER))
		:: else -> skip
		fi
#ifdef LAZY_HOST
	:: hold[s] && !nhold[s] && nexttok[s] <= NTOK(s) -> skip
#endif
#endif
	:: else -> skip
	fi
}

/* Side s forms the record for its slot. */
inline form(s)
{
	load(s);
	r.f8 = 0; r.fk = 0; r.f12 = 0; r.body = 0;
	if
	:: ls[s] != LS_UP ->
		r.op = OP_ENTANGLE; r.k1 = nonce[s]; r.k2 = (hp[s] -> pn[s] : 0); r.st = inc[s]
	:: else ->
		r.k1 = nonce[s]; r.k2 = pn[s];
		r.st = ts[s] | (tb[s] << 3) | (rs[s] << 4) | (rb[s] << 6);
		/* The receiver role needs the payload slices for its echo, or for
		 * the proof of its last delivery while the peer waits for it (both,
		 * in turns, while it holds a payload tentatively and the peer is
		 * behind); when the sender role offers too, they take turns by
		 * round. An echo carries the proof beside the digest. */
		if
#ifdef BUG_ONLY_FOLDED_ECHO
		/* An offering side sends its echo only folded into its offers. */
		:: (rs[s] == RX_TENTATIVE || pdue[s]) &&
		   ((ts[s] != TX_OFFER && ts[s] != TX_COMMIT_OFFER) || (round[s] && rs[s] != RX_TENTATIVE)) ->
#else
		:: (rs[s] == RX_TENTATIVE || pdue[s]) &&
		   ((ts[s] != TX_OFFER && ts[s] != TX_COMMIT_OFFER) || round[s]) ->
#endif
			if
			:: rs[s] == RX_TENTATIVE && !(pdue[s] && pturn[s]) ->
				r.op = OP_ECHO; r.f8 = sto[s]; r.fk = px[s]; r.body = RGOOD
			:: else -> r.op = OP_STATE; r.f8 = px[s]; r.body = RGOOD
			fi;
			if :: rs[s] == RX_TENTATIVE && pdue[s] -> pturn[s] = 1 - pturn[s] :: else -> skip fi
		:: else ->
			if
			:: ts[s] == TX_OFFER -> r.op = OP_OFFER; r.body = tok[s]
			/* COMMIT_OFFER: every other record plain (the decision check in
			 * the payload slices), so the peer hears the channel whatever
			 * check it expects: it goes Up on it, and counts no run of
			 * records that fail their check. */
#ifdef BUG_ALL_FOLDED
			:: ts[s] == TX_COMMIT_OFFER -> r.op = OP_OFFER; r.body = ntok[s]
#else
			:: ts[s] == TX_COMMIT_OFFER && !round[s] -> r.op = OP_OFFER; r.body = ntok[s]
#endif
			:: else -> r.op = OP_STATE;
				if :: rs[s] != RX_TENTATIVE -> r.f8 = px[s]; r.body = RGOOD :: else -> skip fi
			fi;
			/* An offer while holding a payload tentatively carries the
			 * echo in its check word (protocol 6). */
			if
			:: r.op == OP_OFFER && rs[s] == RX_TENTATIVE ->
				r.st = r.st | EFOLD; r.f8 = sto[s]; r.fk = px[s]
			:: else -> skip
			fi
		fi;
		if
		:: (ts[s] == TX_COMMIT || ts[s] == TX_REVERSE) && r.op != OP_OFFER -> r.f12 = auth[s]
		:: ts[s] == TX_COMMIT_OFFER -> r.f12 = auth[s]
		:: else -> skip
		fi;
		round[s] = 1 - round[s]
	fi
}

/* Side s's consumer takes the payload it held tentatively (from side p). */
inline deliver(s, p)
{
	assert(sto[s] >= 1 && sto[s] <= NTOK(p));               /* only what p sent, undamaged */
	assert((delivered[p] & (1 << sto[s])) == 0);           /* at most once */
	assert((ret_nd[p] & (1 << sto[s])) == 0);              /* never after "not delivered" */
	assert(sto[s] > lastdel[p]);                           /* in order */
	delivered[p] = delivered[p] | (1 << sto[s]);
	lastdel[p] = sto[s];
	sto[s] = 0
}

/* Side s hears the proof that its token was delivered: the result is final. */
inline confirm(s)
{
	assert((delivered[s] & (1 << tok[s])) != 0);   /* applied */
	assert(res[s] == RGOOD);                        /* with the result the responder produced */
	final[s] = final[s] | (1 << tok[s]);
	hold[s] = 0; tok[s] = 0; ares[s] = 0;
	promote(s);
	tb[s] = 1 - tb[s];
	ts[s] = TX_IDLE
}

/* One undetected damage: one field of a channel record changed past the
 * check, or the record of another channel (its channel byte damaged). */
inline damage()
{
	if
	:: true -> skip
	:: dmg > 0 -> dmg--;
		if
		:: select(ht : 0..4); select(htb : 0..1); select(hr : 0..2); select(hrb : 0..1); select(hef : 0..1);
		   r.st = ht | (htb << 3) | (hr << 4) | (hrb << 6) | (hef << 7)
		:: r.op != OP_STATE -> r.op = OP_STATE
		:: r.op != OP_OFFER -> r.op = OP_OFFER
		:: r.op != OP_ECHO -> r.op = OP_ECHO
		:: r.f8 = DMGV
		:: r.fk = DMGV
		:: r.f12 = DMGV
		:: r.op == OP_OFFER -> r.body = r.body | CORRUPT
		:: r.op != OP_OFFER -> r.body = RBAD
		:: select(ht : 0..4); select(htb : 0..1); select(hr : 0..2); select(hrb : 0..1);
		   r.st = ht | (htb << 3) | (hr << 4) | (hrb << 6);
		   if :: r.op = OP_STATE :: r.op = OP_OFFER :: r.op = OP_ECHO fi;
		   r.f8 = FOREIGN; r.fk = FOREIGN; r.f12 = X(FOREIGN, RGOOD); r.body = FOREIGN
		fi
	fi
}

/* The sender role of s on the peer's receiver state (hr, hrb). An echo
 * of our payload is its digest with the proof we last heard (key); an
 * echo of the next payload, while COMMIT_OFFER, its digest with our
 * decision check on the one held (the proof the peer delivered it). */
inline hear_sender(s)
{
	/* A folded echo is an ECHO with a message's (no) result: RGOOD here. */
	eb = (hef -> RGOOD : r.body);
	x = X(r.f8, eb);
	if
	:: hrb == tb[s] ->
		if
		:: ts[s] == TX_IDLE && hold[s] && (hr == RX_EXPECT || hr == RX_TENTATIVE) -> ts[s] = TX_OFFER
		:: ts[s] == TX_IDLE && !hold[s] && hr == RX_TENTATIVE && (r.op == OP_ECHO || hef) ->
			/* It holds something we never offered: have it erased. */
			ts[s] = TX_REVERSE; auth[s] = x + REV
		:: ts[s] == TX_OFFER && hr == RX_TENTATIVE && (r.op == OP_ECHO || hef) ->
			if
			:: r.f8 == tok[s] && r.fk == key[s] ->
				/* The decision: the commit point of the transfer; with the
				 * next payload held, it is offered in the same records. */
				if
				:: nhold[s] -> ts[s] = TX_COMMIT_OFFER
				:: else -> ts[s] = TX_COMMIT
				fi;
				auth[s] = x; ares[s] = eb; decided[s] = decided[s] | (1 << tok[s]);
#ifdef BUG_RESULT_AT_DECISION
				final[s] = final[s] | (1 << tok[s])
#else
				skip
#endif
			:: else -> ts[s] = TX_REVERSE; auth[s] = x + REV
			fi
		:: ts[s] == TX_OFFER && hr == RX_REJECT -> ts[s] = TX_IDLE
		:: (ts[s] == TX_COMMIT || ts[s] == TX_COMMIT_OFFER) && hr == RX_TENTATIVE && (r.op == OP_ECHO || hef) &&
		   r.f8 == tok[s] && r.fk == key[s] ->
			auth[s] = x; ares[s] = eb   /* the check of the newest echo */
		:: ts[s] == TX_REVERSE && hr != RX_TENTATIVE -> ts[s] = TX_IDLE   /* erased, or never stored */
		:: ts[s] == TX_REVERSE && hr == RX_TENTATIVE && (r.op == OP_ECHO || hef) -> auth[s] = x + REV
		:: else -> skip
		fi
#ifdef BUG_CONFIRM_WITHOUT_PROOF
	:: hrb != tb[s] && ts[s] == TX_COMMIT && hr == RX_EXPECT ->
		res[s] = RGOOD; confirm(s)
#else
	:: hrb != tb[s] && ts[s] == TX_COMMIT && r.op == OP_STATE && hr != RX_TENTATIVE && r.f8 == X(tok[s], r.body) ->
		res[s] = r.body; key[s] = r.f8; confirm(s)
#endif
	:: hrb != tb[s] && ts[s] == TX_COMMIT_OFFER && r.op == OP_STATE && r.f8 == X(tok[s], r.body) ->
		/* The proof of the one held; the next is offered on its own (or was refused). */
		res[s] = r.body; key[s] = r.f8; confirm(s);
		if :: hr != RX_REJECT -> ts[s] = TX_OFFER :: else -> skip fi
#ifdef BUG_UNCHAINED_PROOF
	:: hrb != tb[s] && ts[s] == TX_COMMIT_OFFER && (r.op == OP_ECHO || hef) && hr == RX_TENTATIVE && r.f8 == ntok[s] ->
#else
	:: hrb != tb[s] && ts[s] == TX_COMMIT_OFFER && (r.op == OP_ECHO || hef) && hr == RX_TENTATIVE &&
	   nhold[s] && r.f8 == ntok[s] && r.fk == auth[s] ->
#endif
		/* The next payload's echo proves the one held delivered, and
		 * decides the next: one record for both. */
		res[s] = ares[s]; key[s] = auth[s]; confirm(s);
		ts[s] = TX_COMMIT; auth[s] = x; ares[s] = eb; decided[s] = decided[s] | (1 << tok[s])
	:: else -> skip
	fi
}

/* The receiver role of s on the peer's sender state (ht, htb). */
inline hear_receiver(s, p)
{
	if
	:: htb == rb[s] ->
		if
#ifdef BUG_STORE_BEFORE_SEEN
		:: rs[s] == RX_EXPECT && ht == TX_OFFER && r.op == OP_OFFER ->
#else
		:: rs[s] == RX_EXPECT && ht == TX_OFFER && r.op == OP_OFFER && !pdue[s] ->
#endif
			if
			:: true -> rs[s] = RX_TENTATIVE; sto[s] = r.body; rx_x[s] = X(r.body, RGOOD)
			:: noroom > 0 -> noroom--; rs[s] = RX_REJECT
			fi
#ifdef BUG_UNCHECKED_DECISION
		:: rs[s] == RX_TENTATIVE && ht == TX_COMMIT ->
#else
		:: rs[s] == RX_TENTATIVE && ht == TX_COMMIT && r.op != OP_OFFER && r.f12 == rx_x[s] ->
#endif
			deliver(s, p); px[s] = rx_x[s]; rb[s] = 1 - rb[s]; rs[s] = RX_EXPECT
		:: rs[s] == RX_TENTATIVE && ht == TX_COMMIT_OFFER && r.f12 == rx_x[s] ->
			/* Deliver, and take the next payload the record offers. */
			deliver(s, p); px[s] = rx_x[s]; rb[s] = 1 - rb[s];
			if
			:: r.op == OP_OFFER ->
				if
				:: true -> rs[s] = RX_TENTATIVE; sto[s] = r.body; rx_x[s] = X(r.body, RGOOD)
				:: noroom > 0 -> noroom--; rs[s] = RX_REJECT
				fi
			:: else -> rs[s] = RX_EXPECT
			fi
#ifdef BUG_UNCHECKED_DECISION
		:: rs[s] == RX_TENTATIVE && ht == TX_REVERSE ->
#else
		:: rs[s] == RX_TENTATIVE && ht == TX_REVERSE && r.op != OP_OFFER && r.f12 == rx_x[s] + REV ->
#endif
			assert((final[p] & (1 << sto[s])) == 0);
			sto[s] = 0; rs[s] = RX_EXPECT; rx_x[s] = 0
		:: rs[s] == RX_REJECT && ht == TX_IDLE -> rs[s] = RX_EXPECT
		:: else -> skip
		fi
	:: htb != rb[s] && rs[s] == RX_EXPECT && ht == TX_COMMIT_OFFER && r.op == OP_OFFER && r.f12 == px[s] ->
		/* The next payload of a decision on what we delivered last. */
		if
		:: true -> rs[s] = RX_TENTATIVE; sto[s] = r.body; rx_x[s] = X(r.body, RGOOD)
		:: noroom > 0 -> noroom--; rs[s] = RX_REJECT
		fi
	:: else -> skip
	fi;
	pdue[s] = (htb != rb[s])
}

/* Side s goes Up. A peer whose incarnation is not the one we last
 * entangled with lost its state: what we shared with it is dropped, and a
 * transfer we decided COMMIT on is handed back in doubt. */
inline go_up(s)
{
	ls[s] = LS_UP; bad[s] = 0;
#ifdef BUG_IGNORE_PEER_RESET
	if :: false -> skip :: else -> skip fi;
#else
	if
	:: pinc[s] != 0 && hinc[s] != pinc[s] ->
		if
		:: hold[s] && (ts[s] == TX_COMMIT || ts[s] == TX_COMMIT_OFFER) -> hand_back(s, 1); promote(s)
		:: else -> skip
		fi;
		zero_channel(s)
	:: else -> skip
	fi;
#endif
	pinc[s] = hinc[s]
}

/* After hearing a channel record, s's sender role is idle and the record
 * states the peer's receiver role at our bit and not REJECT: a payload
 * loaded now is offered at once (machine::Move::peer_ready). */
inline set_pready(s)
{
#ifdef BUG_OFFER_ON_LOAD_AFTER_REJECT
	/* SPIN finds no violation with this: an offer the peer is not ready
	 * for changes nothing there (its moves guard themselves), and a REJECT
	 * at our bit while we hold nothing is only ever a damaged record. */
	pready[s] = (ts[s] == TX_IDLE && hrb == tb[s])
#else
	pready[s] = (ts[s] == TX_IDLE && hrb == tb[s] && hr != RX_REJECT)
#endif
}

/* Side s hears record r from side p. */
inline hear(s, p)
{
	if
	:: r.op == OP_ENTANGLE ->
		if
		:: ls[s] == LS_UP && r.k1 != pn[s] -> fresh(s)   /* the peer re-entangles: join it */
		:: ls[s] == LS_UP && r.k1 == pn[s] -> skip
		:: ls[s] == LS_ENTANGLING && r.k1 == nonce[s] -> fresh(s)   /* same nonce: draw again */
		:: ls[s] == LS_ENTANGLING && r.k1 != nonce[s] ->
			pn[s] = r.k1; hinc[s] = r.st; hp[s] = 1;
			if :: r.k2 == nonce[s] -> go_up(s) :: else -> skip fi
		:: ls[s] == LS_DOWN -> skip
		fi
	:: else ->
		damage();
#ifdef BUG_NO_SESSION
		/* Today's rules before the fix: records carry no session; an
		 * entangling side that heard the peer's nonce goes Up on any. */
		ok = (((r.st >> 4) & 3) != 3);
		if
		:: ls[s] == LS_UP && ok -> bad[s] = 0;
			ht = r.st & 7; htb = (r.st >> 3) & 1; hr = (r.st >> 4) & 3; hrb = (r.st >> 6) & 1;
			hear_sender(s); hear_receiver(s, p); set_pready(s)
		:: ls[s] == LS_ENTANGLING && hp[s] -> go_up(s)
		:: else -> skip
		fi
#else
		ht = r.st & 7; htb = (r.st >> 3) & 1; hr = (r.st >> 4) & 3; hrb = (r.st >> 6) & 1; hef = (r.st >> 7) & 1;
		/* A COMMIT_OFFER's OFFER record carries its decision check in the
		 * check word: heard only if it is the check we expect (of what we
		 * hold at its bit, else our proof). An offer with EFOLD carries
		 * its echo there too: heard only if it is the echo we expect (of
		 * our payload at its bit, else of our next one). */
		mbad = (ht == TX_COMMIT_OFFER && r.op == OP_OFFER && r.f12 != (htb == rb[s] -> rx_x[s] : px[s]));
#ifdef CHECK_MACHINE
		mbad_d = mbad; mbad_e = 0;
#endif
		if
		:: hef && r.op == OP_OFFER &&
		   !(hrb == tb[s] -> (r.f8 == tok[s] && r.fk == key[s]) : (nhold[s] && r.f8 == ntok[s] && r.fk == auth[s])) ->
			mbad = 1
#ifdef CHECK_MACHINE
			; mbad_e = 1
#endif
		:: else -> skip
		fi;
		ok = (r.k1 == pn[s] && r.k2 == nonce[s] && hr != 3 && ht <= TX_COMMIT_OFFER &&
		      (!hef || (r.op == OP_OFFER && hr == RX_TENTATIVE)));
#ifdef CHECK_MACHINE
		was_tb = tb[s]; was_rb = rb[s];
		m_op = (r.op == OP_STATE -> 0 : (r.op == OP_OFFER -> (hef -> 3 : 1) : 2));
		s_idx = ts[s] + 5 * ((hrb == tb[s]) + 2 * (hold[s] + 2 * (nhold[s] + 2 * (hr + 3 * (m_op + 4 *
			((r.f8 == tok[s] && r.fk == key[s]) + 2 * ((r.f8 == X(tok[s], r.body)) + 2 *
			(nhold[s] && r.f8 == ntok[s] && r.fk == auth[s]))))))));
		r_idx0 = rs[s] + 3 * ((htb == rb[s]) + 2 * (pdue[s] + 2 * (0 + 2 * (ht + 5 * (m_op + 4 *
			((r.f12 == rx_x[s]) + 2 * ((r.f12 == rx_x[s] + REV) + 2 * (r.f12 == px[s]))))))));
		r_idx1 = r_idx0 + 12;
		/* The layout's machine says the same of which records are heard. */
		assert(!ok || mbad_d == ((receiver_next[r_idx1] >> 3) & 1));
		assert(!ok || mbad_e == ((sender_next[s_idx] >> 5) & 1));
#endif
		ok = ok && !mbad;
		if
		:: ls[s] == LS_UP && ok -> bad[s] = 0;
			was_ts = ts[s]; was_rs = rs[s];
			hear_sender(s); hear_receiver(s, p); set_pready(s);
			assert(ts[s] == was_ts || SENDER_MOVE(was_ts, ts[s]));
			assert(rs[s] == was_rs || RECEIVER_MOVE(was_rs, rs[s]));
#ifdef CHECK_MACHINE
			assert(ts[s] == (sender_next[s_idx] & 7) && tb[s] == (was_tb ^ ((sender_next[s_idx] >> 3) & 1)));
			assert(pready[s] == ((sender_next[s_idx] >> 4) & 1));
			/* Where the model chose "no room", the table's entry without room. */
			if :: rs[s] == RX_REJECT && was_rs != RX_REJECT -> r_idx1 = r_idx0 :: else -> skip fi;
			assert(rs[s] == (receiver_next[r_idx1] & 3) && rb[s] == (was_rb ^ ((receiver_next[r_idx1] >> 2) & 1)))
#else
			skip
#endif
		:: ls[s] == LS_ENTANGLING && hp[s] && ok -> go_up(s)   /* the peer is Up with our nonce */
		:: ls[s] == LS_UP && !ok -> bad[s]++;
			if :: bad[s] >= FAIL_AFTER -> fresh(s) :: else -> skip fi
		:: else -> skip
		fi
#endif
	fi;
	clear_r; ht = 0; htb = 0; hr = 0; hrb = 0; hef = 0; eb = 0; x = 0; ok = 0; mbad = 0; was_ts = 0; was_rs = 0
#ifdef CHECK_MACHINE
	; s_idx = 0; r_idx0 = 0; r_idx1 = 0; m_op = 0; was_tb = 0; was_rb = 0; mbad_d = 0; mbad_e = 0
#endif
}

/* Side s's host resets its link state: what it holds goes back to its host,
 * in doubt if it had decided COMMIT; a new incarnation. */
inline reset_side(s)
{
	if :: hold[s] -> hand_back(s, ts[s] == TX_COMMIT || ts[s] == TX_COMMIT_OFFER) :: else -> skip fi;
	if :: nhold[s] -> hand_back_next(s) :: else -> skip fi;
	zero_channel(s);
	inc[s] = inc[s] + 1;
	pinc[s] = 0;
	fresh(s)
}

inline clear(q)
{
	do
	:: nempty(q) -> q?junk
	:: empty(q) -> break
	od
}

proctype Side(bit me)
{
	do
	:: finished -> break
	/* A record arrives and is heard ... */
	:: atomic { to[me]?r -> hear(me, 1 - me) }
	/* ... or is lost (garbled: the check fails). */
	:: atomic { loss > 0 && nempty(to[me]) -> to[me]?junk; loss-- }
	/* This side's slot. */
	:: atomic { nfull(to[1 - me]) && may_send(me) && !finished ->
		form(me); slot(me); skips[me] = 0; to[1 - me]!r;
#ifdef REPLAY
		if :: r.op != OP_ENTANGLE -> copy_rec(last[me], r) :: else -> skip fi;
#endif
		clear_r }
#if MAX_SKIP > 0
	/* ... or, Up, a slot that carries another channel's record (it takes
	 * room in flight as any slot does): nothing of this one is sent; its
	 * host may still load it. */
	:: atomic { skips[me] < MAX_SKIP && ls[me] == LS_UP && nfull(to[1 - me]) && may_send(me) && !finished ->
		load(me); slot(me)
#ifndef BUG_NO_RESTATE_SHARE
		; skips[me]++   /* the share kept for restating: at most MAX_SKIP in a row */
#endif
	}
#endif
	/* Faults. */
	:: atomic { resets > 0 -> resets--; reset_side(me) }
	:: atomic { loses > 0 -> loses--; clear(to[me]); fresh(me) }   /* this side loses signal */
	:: atomic { me == A && cuts > 0 -> cuts--; clear(to[A]); clear(to[B]); fresh(A); fresh(B) }
#ifdef REPLAY
	:: atomic { stale > 0 && has_old[1 - me] && nfull(to[me]) -> stale--; to[me]!old[1 - me] }
	:: atomic { dups > 0 && last[1 - me].op != 0 && nfull(to[me]) -> dups--; to[me]!last[1 - me] }
#endif
	od;
	/* Every token was delivered or handed back; "not delivered" ones never were. */
	assert((delivered[A] | ret_nd[A] | ret_doubt[A]) == ALL(NTOK_A));
	assert((delivered[B] | ret_nd[B] | ret_doubt[B]) == ALL(NTOK_B));
	assert((delivered[A] & ret_nd[A]) == 0 && (delivered[B] & ret_nd[B]) == 0);
	/* Delivered only what was decided COMMIT. */
	assert((delivered[A] & ~decided[A]) == 0 && (delivered[B] & ~decided[B]) == 0);
	/* A final result is for a token applied exactly once. */
	assert((final[A] & ~delivered[A]) == 0 && (final[B] & ~delivered[B]) == 0)
}

init
{
	/* MACHINE_INIT */
	atomic {
		ls[A] = LS_ENTANGLING; ls[B] = LS_ENTANGLING;
		nonce[A] = 1; nonce[B] = 2; inc[A] = 1; inc[B] = 1;
		run Side(A); run Side(B)
	}
}

/* Progress: with finitely many faults, every run ends with every token
 * delivered or handed back and both sides Up. */
ltl done { <> finished }
