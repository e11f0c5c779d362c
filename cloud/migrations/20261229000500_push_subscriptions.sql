-- Push notifications to the portal (issue 31; spec section 7
-- `firebase/topic_subscription/`): a browser's Web Push subscription (RFC 8030: its
-- push service's endpoint, and the keys RFC 8291 encrypts each message to) on a topic
-- (an event type of the event notifications) of one organisation, made by a user.
-- One row per organisation, topic and endpoint: the endpoint is the browser's, so a
-- later sign-in on the same browser takes the row over.
CREATE TABLE push_subscriptions (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    topic TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX push_subscriptions_endpoint ON push_subscriptions (organization_id, topic, endpoint);
CREATE INDEX push_subscriptions_user ON push_subscriptions (user_id);
