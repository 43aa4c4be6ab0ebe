"""The performance model: dtypes, single ops, roofs, decode and prefill steps, the playbook."""
