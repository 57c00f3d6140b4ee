#!/usr/bin/env node
// SessionStart hook of the GSD Claude Code plugin, written by `gsd-build plugin`
// (compiler/emit/claude-plugin.ts fills in SETTINGS).
//
// The prompts read their payload (workflows, references, templates, the
// gsd-tools runtime CLI) at ~/<root>/<payload>/, where a global install puts
// it. Installing the plugin does not create that folder, and Claude Code fills
// in ${CLAUDE_PLUGIN_ROOT} only in the plugin's own skills, agents and hook
// commands, not in the files the model reads later. So at session start this
// hook makes ~/<root>/<payload> a symbolic link (a junction on Windows) to the
// plugin's own copy:
//   - nothing there: the link is created in one call, which fails rather than
//     replace anything that appeared meanwhile;
//   - a link of ours (to a copy of this plugin, or dangling into a version
//     folder beside this one that an update removed): replaced by a new link
//     renamed over it, so the path is never missing or half made;
//   - anything else (a user's own install, a link of the user's): left alone.
// It never fails the session: a problem the prompts would trip over is one
// line on stdout, which Claude Code hands the model as session context.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');

const SETTINGS = null; // gsd-build: settings

/** Whether `dir` is a copy of the plugin named `plugin`: its manifest says so. */
function isPluginCopy(files, dir, plugin) {
  try {
    const manifest = JSON.parse(files.readFileSync(path.join(dir, '.claude-plugin', 'plugin.json'), 'utf8'));
    return manifest !== null && typeof manifest === 'object' && manifest.name === plugin;
  } catch {
    return false;
  }
}

function isDirectory(files, file) {
  try {
    return files.statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Links `<home>/<root>/<payload>` to `<pluginRoot>/<payload>`. Returns
 * { outcome, link, target, detail }: outcome is "linked", "relinked",
 * "current", "kept" (not ours: left alone) or "failed".
 */
function linkPayload({ home, pluginRoot, root, payload, plugin, files = fs }) {
  const link = path.join(home, root, payload);
  const result = (outcome, detail, target) => ({ outcome, link, target, detail });
  let ownRoot;
  try {
    ownRoot = files.realpathSync(pluginRoot);
  } catch (error) {
    return result('failed', `the plugin folder ${pluginRoot} cannot be resolved (${error.code ?? error.message})`);
  }
  const target = path.join(ownRoot, payload);
  if (!isDirectory(files, target)) return result('failed', `the plugin has no ${payload}/ folder at ${target}`, target);
  try {
    let stat = null;
    // Twice at most: a link another session made between the look and ours is looked at again.
    for (let attempt = 0; stat === null; attempt += 1) {
      try {
        stat = files.lstatSync(link);
        break;
      } catch (error) {
        if (error.code !== 'ENOENT') throw error;
      }
      files.mkdirSync(path.dirname(link), { recursive: true });
      try {
        files.symlinkSync(target, link, 'junction');
        return result('linked', '', target);
      } catch (error) {
        if (error.code !== 'EEXIST' || attempt > 0) throw error;
      }
    }
    if (!stat.isSymbolicLink()) return result('kept', 'not a link: an install of its own', target);
    const text = files.readlinkSync(link);
    if (text === target) return result('current', '', target);
    const pointsAt = path.resolve(path.dirname(link), text);
    const ours =
      path.basename(pointsAt) === payload &&
      (isPluginCopy(files, path.dirname(pointsAt), plugin) ||
        (!files.existsSync(pointsAt) && path.dirname(path.dirname(pointsAt)) === path.dirname(ownRoot)));
    if (!ours) return result('kept', `a link to ${text}, not to a copy of this plugin`, target);
    const temporary = path.join(path.dirname(link), `.${payload}.link-${randomBytes(6).toString('hex')}`);
    files.symlinkSync(target, temporary, 'junction');
    try {
      files.renameSync(temporary, link);
    } catch (error) {
      files.rmSync(temporary, { force: true });
      throw error;
    }
    return result('relinked', `was ${text}`, target);
  } catch (error) {
    return result('failed', `${error.code ?? 'error'}: ${error.message}`, target);
  }
}

/** The line for the model, or '' when the prompts will find their payload. */
function notice(outcome, files = fs) {
  if (outcome.outcome === 'failed') {
    return `GSD plugin: could not link ${outcome.link} to the plugin's copy (${outcome.detail}); GSD commands will not find their workflows and gsd-tools there.`;
  }
  if (outcome.outcome === 'kept' && !isDirectory(files, outcome.link)) {
    return `GSD plugin: ${outcome.link} is ${outcome.detail} and leads to no folder; the plugin leaves it alone, so GSD commands will not find their workflows. Remove it to let the plugin link its copy.`;
  }
  return '';
}

module.exports = { linkPayload, notice };

if (require.main === module && SETTINGS !== null) {
  const outcome = linkPayload({ home: os.homedir(), pluginRoot: path.join(__dirname, '..'), ...SETTINGS });
  const line = notice(outcome);
  if (line) process.stdout.write(`${line}\n`);
}
