import t from 'tap';
import { doCreateUser } from '../../../src/api/users/actions.js';
import { BOT_TYPE } from '../../../src/model/types.js';
import { inProcessShard } from '../../helpers/shard.js';

// No endpoint creates bots yet, so the bot is made in-process; the request still goes through
// the dispatcher as HTTP would deliver it.
t.test('POST /realm/emoji/{emoji_name}: bots are refused, as require_member_or_admin does', async (t) => {
  const { shard, realm, owner, call } = await inProcessShard(t);
  const bot = await doCreateUser(shard, realm, { email: 'helper-bot@example.com', fullName: 'Helper', isBot: true, botType: BOT_TYPE.generic, botOwnerId: owner.id });
  const res = await call(bot, 'emoji.upload', { emoji_name: 'tick' });
  t.same([res.status, res.body], [400, { result: 'error', msg: 'This endpoint does not accept bot requests.', code: 'BAD_REQUEST' }], 'the reference\'s error');
  t.equal(realm.realmEmoji.size, 0, 'nothing added');
  const list = await call(bot, 'emoji.list');
  t.same(list.body.emoji, {}, 'a bot may list them');
});
