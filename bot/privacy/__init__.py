"""What Heyan keeps and lets go: sealed values, the audit trail, forgetting, erasing a member, a session or a
tenant."""
