//! Derivative-free minimisation over the unit cube, shared by the fits
//! (`calibrate.rs`, `gc_fit.rs`): Nelder–Mead from the `argmin` crate,
//! started from a point and one step of a fifth of each axis towards the
//! middle, so that the first simplex lies inside the cube. Objectives clamp
//! the points they are given to the cube.

use argmin::core::{CostFunction, Executor, State};
use argmin::solver::neldermead::NelderMead;

/// The best point found within `max_iters` iterations, stopping early once
/// the cost is at most `target_cost`.
pub fn minimise<P>(
    problem: P,
    start: Vec<f64>,
    max_iters: u64,
    target_cost: f64,
) -> Result<Vec<f64>, String>
where
    P: CostFunction<Param = Vec<f64>, Output = f64>,
{
    let solver = NelderMead::new(first_simplex(&start))
        .with_sd_tolerance(1e-6)
        .map_err(|e| e.to_string())?;
    let result = Executor::new(problem, solver)
        .configure(|s| s.max_iters(max_iters).target_cost(target_cost))
        .run()
        .map_err(|e| e.to_string())?;
    Ok(result.state().get_best_param().cloned().unwrap_or(start))
}

/// The first simplex: the start and one step of a fifth of each axis,
/// towards its middle.
pub fn first_simplex(start: &[f64]) -> Vec<Vec<f64>> {
    let mut s = vec![start.to_vec()];
    for i in 0..start.len() {
        let mut v = start.to_vec();
        v[i] += if v[i] > 0.5 { -0.2 } else { 0.2 };
        s.push(v);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_simplex_stays_inside_the_cube() {
        for start in [[0.01, 0.9, 0.2], [0.6, 0.1, 1.0]] {
            let s = first_simplex(&start);
            assert_eq!(s.len(), 4);
            assert!(s.iter().flatten().all(|v| (0.0..=1.0).contains(v)));
            assert!(s[1..].iter().all(|v| v != &start.to_vec()));
        }
    }
}
