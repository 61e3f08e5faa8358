" SPDX-License-Identifier: GPL-3.0-or-later
" A mail buffer (filetype mail.maildexcompose, after Vim's own mail ftplugin, so its guard is its
" own): send with CTRL-C CTRL-C (notmuch.el's key) or :MaildexSend, attach with CTRL-C CTRL-A,
" save a draft with :write, postpone with CTRL-C CTRL-P; addresses complete with CTRL-X CTRL-O.
" Its keys are <Plug>(maildex-compose-...) mappings (:help maildex-mappings); b:undo_ftplugin,
" after mail's own undoing, undoes them and the option.
if exists('b:did_ftplugin_maildexcompose')
  finish
endif
let b:did_ftplugin_maildexcompose = 1
let s:cpo_save = &cpo
set cpo&vim

setlocal omnifunc=maildex#address#complete
call maildex#map#undo('setlocal omnifunc< | unlet! b:did_ftplugin_maildexcompose')

call maildex#map#plug('n', 'compose-send', ':<C-u>MaildexSend<CR>', '<C-c><C-c>')
call maildex#map#plug('n', 'compose-attach', ':<C-u>call maildex#compose#attach_prompt()<CR>', '<C-c><C-a>')
call maildex#map#plug('n', 'compose-postpone', ':<C-u>call maildex#compose#postpone()<CR>', '<C-c><C-p>')

let &cpo = s:cpo_save
unlet s:cpo_save
