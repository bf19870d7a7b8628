/**
 * What we tell clients we are. The mobile app refuses servers below feature level 277 and warns
 * below 371; the Python bindings refuse a server without zulip_version. We implement the API of
 * Zulip 10.2, feature level 372 (test/reference/zulip-openapi.yaml).
 */
export const ZULIP_VERSION = '10.2';
export const ZULIP_MERGE_BASE = '10.2';
export const ZULIP_FEATURE_LEVEL = 372;
