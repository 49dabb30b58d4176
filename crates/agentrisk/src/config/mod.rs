//! The `agentleak.yaml` configuration (spec section 4), parsed and validated.
