/* See time_budget.h. */
#include "harness/run/time_budget.h"

double budget_pace(const time_budget *b)
{
    return b->model_s > 0 && b->took_s > 0 ? b->took_s / b->model_s : 1.0;
}

int budget_fits(const time_budget *b, double now, double est_s)
{
    if (b->limit_s <= 0 || !b->started) return 1;
    return now - b->t0 + est_s * budget_pace(b) <= b->limit_s;
}

void budget_input_done(time_budget *b, double took_s, double est_s)
{
    if (took_s > 0 && est_s > 0) b->took_s += took_s, b->model_s += est_s;
}

void budget_start(time_budget *b) { b->started++; }
