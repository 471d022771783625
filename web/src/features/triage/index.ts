// What failure triage offers the run page and the run report (web-features-through-their-face).
export { RunFailures } from './RunFailures';
export { FailureSuggestions } from './FailureSuggestions';
export { FailureGroupsSummary } from './FailureGroupsSummary';
