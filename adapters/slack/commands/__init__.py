"""What Slack members invoke: ``/heyan``, the shortcut, buttons and modals, the App Home tab."""
