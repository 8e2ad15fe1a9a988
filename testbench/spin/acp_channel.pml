/*
 * ACP channel machine and re-entanglement: a Promela model for SPIN.
 *
 * Two sides, A (0) and B (1), one token channel (K = 1), both roles on each
 * side: A sends NTOK_A distinct tokens to B and B sends NTOK_B to A at the
 * same time. Every record restates its sender's whole channel state (both
 * roles); the transitions are the tables in hdl/layout/src/acp.rs, the same
 * the HDL (hdl/src/acp/link.rs) implements. See README.md next to this file
 * for what is modelled and what is abstracted.
 *
 * The state codes must equal pendulum_layout::acp::{tx_state, rx_state} and
 * the opcodes pendulum_layout::acp::OP_*; testbench/tests/spin.rs checks it.
 */

/* Sender-role states (pendulum_layout::acp::tx_state). */
#define TX_IDLE       0
#define TX_OFFER      1
#define TX_COMMIT     2
#define TX_REVERSE    3
/* Receiver-role states (pendulum_layout::acp::rx_state). */
#define RX_EXPECT     0
#define RX_TENTATIVE  1
#define RX_REJECT     2
/* Opcodes (pendulum_layout::acp::OP_*): what the payload slices carry. */
#define OP_STATE      1
#define OP_OFFER      2
#define OP_ECHO       3

/* Bounds: tokens per direction and the fault budgets of one run. */
#ifndef NTOK_A
#define NTOK_A        3   /* tokens A sends to B */
#endif
#ifndef NTOK_B
#define NTOK_B        2   /* tokens B sends to A */
#endif
#ifndef MAX_LOSS
#define MAX_LOSS      2   /* records lost in the medium or garbled (check fails: not heard) */
#endif
#ifndef MAX_CORRUPT
#define MAX_CORRUPT   1   /* corruptions of the payload slices that escape the check */
#endif
#ifndef MAX_NOROOM
#define MAX_NOROOM    1   /* offers heard while the receiver has no room */
#endif
#ifndef MAX_CUTS
#define MAX_CUTS      2   /* link failures, each followed by re-entanglement */
#endif
#ifndef QS
#define QS            1   /* records in flight per direction */
#endif

#define A 0
#define B 1
/* A payload is its token's number (1..3); an undetected corruption sets this
 * bit. The digest of a payload is abstracted as the payload itself: equal
 * digests mean equal payloads (no CRC collisions). */
#define CORRUPT 8

/* Records to side s: opcode, state byte, body. The state byte is packed as
 * pendulum_layout::acp::state_byte: bits 2..0 sender state, bit 3 its bit,
 * bits 5..4 receiver state, bit 6 its bit. The body is the offered payload
 * (OP_OFFER), the digest of the payload held tentatively (OP_ECHO) or 0. */
chan to[2] = [QS] of { byte, byte, byte };

/* Channel state of each side. */
byte tx[2];          /* sender role */
bit  tb[2];          /* its alternation bit */
byte rx[2];          /* receiver role */
bit  rb[2];          /* its alternation bit */
bool holding[2];     /* the sender role holds a token (its copy) */
byte tok[2];         /* that token */
byte stored[2];      /* payload held tentatively by the receiver role, 0 if none */
bit  round[2];       /* round parity: which of payload/digest a record carries when both are due */
byte nexttok[2] = 1; /* the host's next token to load */

/* Re-entanglement (hdl: incarnation, peer_inc). 0 = none known. */
byte inc[2] = 1;     /* this side's incarnation: changes at every reset of its state */
byte peerinc[2] = 1; /* the peer's incarnation at the last entanglement */

/* Ghost state for the properties; index = the side that sent the tokens. */
byte delivered[2];   /* tokens delivered to the peer's consumer (bit t) */
byte decided[2];     /* tokens the sender decided COMMIT for */
byte ret_nd[2];      /* handed back to the sender's host: not delivered */
byte ret_doubt[2];   /* handed back to the sender's host: in doubt */
byte lastdel[2];     /* last token delivered (order) */

/* Slots: both sides send one record per slot, so neither runs ahead of the
 * other by more than one record (skew = records sent by A - by B, + 1). */
byte skew = 1;
#define may_send(s)  ((s) == A -> skew < 2 : skew > 0)
#define slot(s)      if :: (s) == A -> skew++ :: else -> skew-- fi

/* Fault budgets. */
byte loss = MAX_LOSS;
byte corrupt = MAX_CORRUPT;
byte noroom = MAX_NOROOM;
byte cuts = MAX_CUTS;

/* Scratch, used only inside atomic steps (kept out of the state vector). */
hidden byte op, st, body, ht, htb, hr, hrb;
hidden byte flushA, flushB;

#define NTOK(s)      ((s) == A -> NTOK_A : NTOK_B)
#define ALL(n)       ((1 << ((n) + 1)) - 2)   /* tokens 1..n */
/* Nothing left to send or to settle (no conditional expression here: the
 * LTL parser would read its arrow as an implication). */
#define finished     (!holding[A] && !holding[B] && nexttok[A] > NTOK_A && nexttok[B] > NTOK_B)

/* A held token goes back to its sender's host. */
inline hand_back(s, doubt)
{
	if
	:: doubt -> ret_doubt[s] = ret_doubt[s] | (1 << tok[s])
	:: else ->
		/* "not delivered" must be true */
		assert((delivered[s] & (1 << tok[s])) == 0);
		ret_nd[s] = ret_nd[s] | (1 << tok[s])
	fi;
	holding[s] = 0;
	tok[s] = 0
}

/* Side s's channel state goes back to IDLE 0 / EXPECT 0; a tentative payload is erased. */
inline zero_channel(s)
{
	tx[s] = TX_IDLE; tb[s] = 0;
	rx[s] = RX_EXPECT; rb[s] = 0;
	stored[s] = 0
}

/* Side s's host posts its tokens in order, each as soon as the channel is
 * free (hdl: load_ok): here, at the side's next slot, so that the peer's
 * records can be heard between the freeing and the loading. */
inline load(s)
{
	if
	:: !holding[s] && nexttok[s] <= NTOK(s) ->
		assert(tx[s] == TX_IDLE);
		holding[s] = 1; tok[s] = nexttok[s]; nexttok[s]++
	:: else -> skip
	fi
}

/* Side s forms the record for this slot (pendulum_layout::acp::carries_echo). */
inline form_record(s)
{
	load(s);
	if
	:: rx[s] == RX_TENTATIVE && (tx[s] != TX_OFFER || round[s]) ->
		op = OP_ECHO; body = stored[s]
	:: else ->
		if
		:: tx[s] == TX_OFFER -> op = OP_OFFER; body = tok[s]
		:: else -> op = OP_STATE; body = 0
		fi
	fi;
	st = tx[s] | (tb[s] << 3) | (rx[s] << 4) | (rb[s] << 6);
	round[s] = 1 - round[s]
}

/* Side s's consumer takes the payload it held tentatively (from side p). */
inline deliver(s, p)
{
	assert((stored[s] & CORRUPT) == 0);                  /* (2) never a corrupted payload */
	assert((decided[p] & (1 << stored[s])) != 0);        /* (2) only after the sender decided COMMIT */
	assert(tx[p] == TX_COMMIT && tok[p] == stored[s] && tb[p] == rb[s]); /* ... and still holds that decision */
	assert((delivered[p] & (1 << stored[s])) == 0);      /* (1) at most once */
	assert((ret_nd[p] & (1 << stored[s])) == 0);         /* (1) not after "not delivered" */
	assert(stored[s] > lastdel[p]);                      /* (3) in order */
	delivered[p] = delivered[p] | (1 << stored[s]);
	lastdel[p] = stored[s];
	stored[s] = 0
}

/* Side s hears the record (op, st, body) from side p: the tables of acp.rs. */
inline hear(s, p)
{
	ht = st & 7; htb = (st >> 3) & 1; hr = (st >> 4) & 3; hrb = (st >> 6) & 1;
	/* A corruption of the payload slices that escapes the check. */
	if
	:: corrupt > 0 && (op == OP_OFFER || op == OP_ECHO) ->
		corrupt--; body = body | CORRUPT
	:: true
	fi;

	/* Sender role, on the peer's receiver state (hr, hrb). */
	if
	:: tx[s] == TX_IDLE && holding[s] && hrb == tb[s] && hr == RX_EXPECT ->
		tx[s] = TX_OFFER
	:: tx[s] == TX_OFFER && hrb == tb[s] && hr == RX_TENTATIVE && op == OP_ECHO ->
		/* The decision: the commit point of the transfer. */
		if
		:: body == tok[s] -> tx[s] = TX_COMMIT; decided[s] = decided[s] | (1 << tok[s])
		:: else -> tx[s] = TX_REVERSE
		fi
	:: tx[s] == TX_OFFER && hrb == tb[s] && hr == RX_REJECT ->
		tx[s] = TX_IDLE                                   /* MUTATION: reject-to-idle */
	:: tx[s] == TX_COMMIT && hrb != tb[s] && hr == RX_EXPECT -> /* MUTATION: commit-confirm */
		/* Confirmed: the peer delivered it. Free the copy. */
		assert((delivered[s] & (1 << tok[s])) != 0);
		holding[s] = 0; tok[s] = 0;
		tx[s] = TX_IDLE; tb[s] = 1 - tb[s]
	:: tx[s] == TX_REVERSE && hrb == tb[s] && hr == RX_EXPECT ->
		tx[s] = TX_IDLE                                   /* keep holding: offered again */
	:: else -> skip
	fi;

	/* Receiver role, on the peer's sender state (ht, htb). */
	if
	:: rb[s] == htb && rx[s] == RX_EXPECT && ht == TX_OFFER && op == OP_OFFER ->
		if
		:: true -> rx[s] = RX_TENTATIVE; stored[s] = body  /* room: store tentatively */
		:: noroom > 0 -> noroom--; rx[s] = RX_REJECT      /* no room */
		fi
	:: rb[s] == htb && rx[s] == RX_TENTATIVE && ht == TX_COMMIT -> /* MUTATION: deliver-on */
		deliver(s, p);
		rx[s] = RX_EXPECT; rb[s] = 1 - rb[s]
	:: rb[s] == htb && rx[s] == RX_TENTATIVE && ht == TX_REVERSE ->
		stored[s] = 0; rx[s] = RX_EXPECT                  /* erase */
	:: rb[s] == htb && rx[s] == RX_REJECT && ht == TX_IDLE ->
		rx[s] = RX_EXPECT
	:: else -> skip
	fi;
	op = 0; st = 0; body = 0; ht = 0; htb = 0; hr = 0; hrb = 0
}

/* Side r loses its link state (hdl: reset_link, flush_local): everything it
 * holds goes back to its host, in doubt if it had decided COMMIT. */
inline reset_side(r)
{
	if
	:: holding[r] -> hand_back(r, tx[r] == TX_COMMIT)
	:: else -> skip
	fi;
	zero_channel(r);
	inc[r] = inc[r] + 1;   /* a new life */
	peerinc[r] = 0
}

/* The nonce exchange, abstracted as one atomic step. What is kept is the
 * decision each side takes at it (hdl: go_up, flush_peer): if the peer's
 * incarnation is not the one it last entangled with, the peer lost its state;
 * then a transfer decided COMMIT but not confirmed is handed back in doubt,
 * the rest (OFFER, REVERSE, IDLE holding) are offered again from a fresh
 * start, and both roles restart at bit 0. */
inline entangle()
{
	flushA = (peerinc[A] != 0 && inc[B] != peerinc[A]); /* MUTATION: session-A */
	flushB = (peerinc[B] != 0 && inc[A] != peerinc[B]);
	peerinc[A] = inc[B];
	peerinc[B] = inc[A];
	if
	:: flushA ->
		if
		:: holding[A] && tx[A] == TX_COMMIT -> hand_back(A, 1)
		:: else -> skip
		fi;
		zero_channel(A)
	:: else -> skip
	fi;
	if
	:: flushB ->
		if
		:: holding[B] && tx[B] == TX_COMMIT -> hand_back(B, 1)
		:: else -> skip
		fi;
		zero_channel(B)
	:: else -> skip
	fi;
	flushA = 0; flushB = 0
}

/* A link failure: the records in flight are gone; possibly one side loses its
 * state; then the sides re-entangle and resume restating their states. */
inline cut()
{
	do
	:: nempty(to[A]) -> to[A]?_,_,_
	:: nempty(to[B]) -> to[B]?_,_,_
	:: empty(to[A]) && empty(to[B]) -> break
	od;
	if
	:: skip                   /* (a) both keep their channel state */
	:: true -> reset_side(B)   /* (b) B loses its state */
	:: true -> reset_side(A)   /*     or A does */
	fi;
	entangle()
}

proctype Side(bit me)
{
	do
	:: finished -> break
	/* A record arrives: heard (first, before this side's next slot) ... */
	:: atomic { to[me]?op,st,body -> hear(me, 1 - me) }
	/* ... or garbled: its check fails and it is not heard. */
	:: atomic { loss > 0 && nempty(to[me]) -> to[me]?_,_,_; loss-- }
	/* This side's slot: it restates its state ... */
	:: atomic { nfull(to[1 - me]) && may_send(me) && !finished ->
		form_record(me); slot(me); to[1 - me]!op,st,body; op = 0; st = 0; body = 0 }
	/* ... and the medium may lose the record. */
	:: atomic { loss > 0 && may_send(me) && !finished ->
		form_record(me); slot(me); loss--; op = 0; st = 0; body = 0 }
	/* A link failure and re-entanglement (taken by one process, so it is a
	 * single global step). */
	:: atomic { me == A && cuts > 0 -> cuts--; cut() }
	od;
	/* (4) Every token was delivered or handed back; "not delivered" ones never were. */
	assert((delivered[A] | ret_nd[A] | ret_doubt[A]) == ALL(NTOK_A));
	assert((delivered[B] | ret_nd[B] | ret_doubt[B]) == ALL(NTOK_B));
	assert((delivered[A] & ret_nd[A]) == 0 && (delivered[B] & ret_nd[B]) == 0)
}

init
{
	atomic { run Side(A); run Side(B) }
}

/* (4) Liveness: with finitely many faults, every run ends with every token
 * delivered or handed back (the sides stop restating only then). */
ltl done { <> finished }
