"""handoff_client: handoffd's D-Bus API (org.handoff.Handoff1) for Python apps, on jeepney.

    from handoff_client import Handoff
    with Handoff() as handoff:
        handoff.declare_type("org.example.reader", app="Reader")
        activity = handoff.set_current_activity("org.example.reader", "Chapter 3", {"page": 41})

See Docs/apps.md for how an app adopts handoff, and Docs/dbus-api.md for the API itself.
"""

from .client import (ActivityEvent, ActivitySummary, Continued, ContinuedActivity, ContinuedListener, Handoff,
                     HandoffError, PlistValue, ProtocolError, Status, UserInfo, decode_user_info, encode_user_info)

__all__ = ["ActivityEvent", "ActivitySummary", "Continued", "ContinuedActivity", "ContinuedListener", "Handoff",
           "HandoffError", "PlistValue", "ProtocolError", "Status", "UserInfo", "decode_user_info",
           "encode_user_info"]
