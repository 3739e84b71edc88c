/* The compiled bots by code (xuezhan.native.layout.BOT_CODES): the random bot, the heuristic of
 * xz_heuristic.c and the learned bot of xz_learned.c. The engine plays whatever XzBot it is given;
 * this file is where a bot code becomes one. */
#include "xz_engine.h"

uint64_t xz_bot_seed(uint64_t hand_seed, int seat) { /* runtime.seats.bot_seed */
    uint64_t z = hand_seed + (uint64_t)(seat + 1) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* bots.random_bot.RandomBot.choose: a hash of (salt, step) */
static int random_choose(XzBot *bot, const XzGame *g, int seat, const XzAction *legal, int n) {
    (void)seat; (void)legal;
    uint64_t z = (bot->salt + (uint64_t)g->nactions) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 29)) * 0xBF58476D1CE4E5B9ULL;
    return (int)(((z >> 32) * (uint64_t)n) >> 32);
}

void xz_random_bot(XzBot *bot, uint64_t salt) {
    bot->choose = random_choose;
    bot->salt = salt;
}

int xz_make_bot(XzBot *bot, int code, uint64_t salt) {
    switch (code) {
    case XZ_BOT_RANDOM:
        xz_random_bot(bot, salt);
        return 0;
    case XZ_BOT_HEURISTIC:
    case XZ_BOT_HEURISTIC_QUICK:
        return xz_heuristic_bot(bot, code == XZ_BOT_HEURISTIC_QUICK) < 0 ? -2 : 0;
    case XZ_BOT_LEARNED:
        return xz_learned_bot(bot);
    default:
        return -1;
    }
}
