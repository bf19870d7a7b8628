/**
 * Where POST /register's server_emoji_data_url points (the reference's path); src/front serves
 * it. A module of its own so that the front end knows the path without loading the emoji tables.
 */
export const EMOJI_API_PATH = '/static/generated/emoji/emoji_api.json';
