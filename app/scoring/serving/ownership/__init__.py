"""Own GPU servers or rent them: the monthly cost of owning, the break-even with renting, and sourced defaults."""
