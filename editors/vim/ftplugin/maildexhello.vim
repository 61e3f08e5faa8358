" SPDX-License-Identifier: GPL-3.0-or-later
" Keys of the start page (maildex://hello): <Plug>(maildex-hello-...) mappings and their default
" keys (:help maildex-mappings), all undone by b:undo_ftplugin.
if exists('b:did_ftplugin')
  finish
endif
let b:did_ftplugin = 1
let s:cpo_save = &cpo
set cpo&vim

call maildex#map#plug('n', 'hello-open', ':<C-u>call maildex#hello#enter()<CR>', '<CR>')
call maildex#map#plug('n', 'search', ':<C-u>Maildex<Space>', 's', 0)
call maildex#map#plug('n', 'tree-prompt', ':<C-u>MaildexTree<Space>', 'Z', 0)
call maildex#map#plug('n', 'hello-refresh', ':<C-u>call maildex#hello#open()<CR>', '=')
call maildex#map#plug('n', 'hello-new', ':<C-u>call maildex#hello#poll()<CR>', 'N')
call maildex#map#plug('n', 'compose', ':<C-u>MaildexCompose<CR>', 'm')
call maildex#map#plug('n', 'close', ':<C-u>call maildex#util#close()<CR>', 'q')

let &cpo = s:cpo_save
unlet s:cpo_save
