/* --time-limit: start no input the time model, scaled by this run's pace,
 * says would end after the limit. The pace is what the finished inputs took
 * over what the model gave them (1 before the first ends), so a model that
 * is low on this machine stops the run earlier, not later. */
#ifndef HARNESS_RUN_TIME_BUDGET_H
#define HARNESS_RUN_TIME_BUDGET_H

typedef struct time_budget {
    double limit_s; /* 0: no limit */
    double t0;      /* the run's start (timing_now) */
    double took_s, model_s; /* the finished inputs: what they took, what the model said */
    unsigned started;       /* inputs started (budget_start) */
} time_budget;

/* Measured seconds per modelled second so far. */
double budget_pace(const time_budget *b);

/* 1 when an input the model gives est_s, started at `now`, ends within the
 * limit at this pace; always without a limit, and for the process's first
 * input (a limit shorter than one input still makes progress). */
int budget_fits(const time_budget *b, double now, double est_s);

/* An input starts. */
void budget_start(time_budget *b);

/* An input ended: it took `took_s` where the model said est_s. */
void budget_input_done(time_budget *b, double took_s, double est_s);

#endif
